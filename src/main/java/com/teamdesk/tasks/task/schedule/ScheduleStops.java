package com.teamdesk.tasks.task.schedule;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.task.spi.KindSchedules;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.team.JdbcTeamWrites;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional.TxType;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * {@link KindSchedules} for the kinds (issue 51): a kind stops its schedules without naming this room; the store
 * disables them ({@link ScheduleStore#disableWhere}) and each gets its system event
 * {@value ScheduleMaterializer#DISABLED_EVENT} through the team's writes, in the caller's transaction.
 */
@ApplicationScoped
public class ScheduleStops implements KindSchedules {

    @Inject
    ScheduleStore schedules;

    @Inject
    JdbcTeamWrites team;

    @Override
    @Transactional(TxType.MANDATORY)
    public List<UUID> disableWhere(TaskKind kind, UUID teamId, String param, String value, String reason, UUID ticketId,
            UUID actorId, Instant now) {
        List<UUID> disabled = schedules.disableWhere(teamId, kind, param, value, reason, now);
        for (UUID schedule : disabled) {
            team.appendSystemEvent(teamId, ScheduleMaterializer.DISABLED_EVENT, ticketId, actorId, null,
                    Jsons.PROVIDER.createObjectBuilder().add("scheduleId", schedule.toString()).add("reason", reason)
                            .build(), now);
        }
        return disabled;
    }
}
