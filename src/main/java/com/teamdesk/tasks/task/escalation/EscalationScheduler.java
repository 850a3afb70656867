package com.teamdesk.tasks.task.escalation;

import com.teamdesk.tasks.task.spi.KindLedger;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.team.JdbcTeamWrites;
import com.teamdesk.tasks.team.sla.SlaClockMoved;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.logging.Logger;

/**
 * R59: starts the escalations of the clocks a change moved, in that change's transaction — one task per (ticket,
 * metric, threshold, version), due at the warning and at the breach instant ({@link KindLedger#scheduleOnce}: the
 * dispatch sweep hands each to the queue when due). No sweep looks for due clocks: a clock's escalations exist from
 * the moment its instants do. A clock's newer escalations replace its older ones still waiting (cancelled in the same
 * statement); those already handed over, or of a clock paused since, complete as superseded when their time comes.
 * A task runs for the team's first owner (by id): escalations are the team's, not a member's.
 */
@ApplicationScoped
public class EscalationScheduler {
    private static final Logger LOG = Logger.getLogger(EscalationScheduler.class.getName());
    /** The {@code lastError} of an escalation a newer version of its clock replaced while it waited. */
    static final String REPLACED = "Replaced: the clock moved on before this escalation's instant.";

    @Inject
    KindLedger ledger;

    @Inject
    JdbcTeamWrites team;

    @Inject
    EscalationHandler handler;

    @Inject
    Clock clock;

    /** Starts the warning and the breach escalation of every clock of {@code e} that has such an instant. */
    void onClockMoved(@Observes SlaClockMoved e) {
        UUID owner = team.ownerIds(e.teamId()).stream().findFirst()
                .or(() -> team.staffIds(e.teamId()).stream().findFirst()).orElse(null);
        if (owner == null) {
            LOG.warning(() -> "SLA escalations not started: team " + e.teamId() + " has no owner or staff");
            return;
        }
        List<KindLedger.OnceTask> tasks = new ArrayList<>(e.clocks().size() * 2);
        for (SlaClockMoved.Moved m : e.clocks()) {
            if (m.warnAt() != null) {
                tasks.add(task(e.teamId(), owner, new EscalationParams(m.ticketId(), m.metric(), Threshold.WARNING, m.version()),
                        m.warnAt()));
            }
            if (m.dueAt() != null) {
                tasks.add(task(e.teamId(), owner, new EscalationParams(m.ticketId(), m.metric(), Threshold.BREACH, m.version()),
                        m.dueAt()));
            }
        }
        ledger.scheduleOnce(tasks, REPLACED, clock.instant().truncatedTo(ChronoUnit.MICROS));
    }

    private KindLedger.OnceTask task(UUID teamId, UUID owner, EscalationParams p, Instant at) {
        return new KindLedger.OnceTask(EscalationHandler.KIND, teamId, owner, TaskScope.TEAM, handler.store(p),
                p.onceKey(), p.group(), at);
    }
}
