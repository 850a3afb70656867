package com.teamdesk.tasks.task.reminder;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.platform.SchemaMigration;
import com.teamdesk.tasks.task.ledger.LedgerException;
import com.teamdesk.tasks.task.schedule.ScheduleMaterializer;
import com.teamdesk.tasks.task.schedule.ScheduleStore;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.team.JdbcTeamWrites;
import com.teamdesk.tasks.team.TicketClosed;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional.TxType;
import jakarta.transaction.Transactional;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * R24: when a ticket is CLOSED, its reminders that are not yet running (WAITING: scheduled, queued
 * or between attempts) are cancelled in the same transaction as the status change, each with a
 * system event {@value #EVENT_KIND} appended through the team's {@link JdbcTeamWrites}. A reminder
 * already RUNNING is not cancelled here: it finds the ticket closed under the team lock and is
 * rejected ({@code TICKET_CLOSED}, R11). Queue jobs of the cancelled runs are left to the claim
 * (0 rows, R7) and to reconciliation (R23). Issue 31: the enabled reminder schedules that name the ticket are
 * disabled in the same transaction, each with a system event {@code schedule.disabled}.
 */
@ApplicationScoped
public class TicketReminderCancellation {
    private static final Logger LOG = Logger.getLogger(TicketReminderCancellation.class.getName());

    /** Kind of the system event written for each reminder cancelled by a ticket's closing. */
    public static final String EVENT_KIND = "task.cancelled";

    /** {@code lastError} of a reminder cancelled because its ticket was closed. */
    public static final String MESSAGE = "Cancelled because the ticket was closed.";

    /** {@code disabledReason} of a reminder schedule whose ticket was closed (issue 31). */
    public static final String SCHEDULE_REASON = "Its ticket was closed.";

    @Inject
    ScheduleStore schedules;

    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

    @Inject
    JdbcTeamWrites team;

    /** Cancels the closed ticket's waiting reminders inside the PATCH's transaction ({@code MANDATORY}). */
    @Transactional(TxType.MANDATORY)
    public void onTicketClosed(@Observes TicketClosed closed) {
        List<TaskJobId> cancelled = cancelWaitingReminders(closed.teamId(), closed.ticketId(), closed.actorId(),
                MESSAGE, closed.at());
        for (TaskJobId job : cancelled) {
            team.appendSystemEvent(closed.teamId(), EVENT_KIND, closed.ticketId(), closed.actorId(), job.taskId(),
                    Jsons.PROVIDER.createObjectBuilder().add("taskId", job.taskId().toString()).add("run", job.run())
                            .add("reason", "ticket closed").build(), closed.at());
        }
        if (!cancelled.isEmpty()) {
            LOG.info(() -> "task.cancelled " + cancelled + ": ticket " + closed.ticketId() + " closed");
        }
        // issue 31 (R41): the reminder schedules that name the ticket stop, each with a system event
        List<UUID> disabled = schedules.disableWhere(closed.teamId(), ReminderHandler.KIND, "ticketId",
                closed.ticketId().toString(), SCHEDULE_REASON, closed.at());
        for (UUID schedule : disabled) {
            team.appendSystemEvent(closed.teamId(), ScheduleMaterializer.DISABLED_EVENT, closed.ticketId(),
                    closed.actorId(), null, Jsons.PROVIDER.createObjectBuilder().add("scheduleId", schedule.toString())
                            .add("reason", SCHEDULE_REASON).build(), closed.at());
        }
        if (!disabled.isEmpty()) {
            LOG.info(() -> "schedule.disabled " + disabled + ": ticket " + closed.ticketId() + " closed");
        }
    }

    /**
     * R24: cancels the WAITING (not yet running) reminders of the ticket, in the caller's transaction,
     * as the ledger's cancel does row by row (CANCELLED, lease cleared, who and when, {@code lastError}).
     *
     * @return the runs cancelled
     */
    private List<TaskJobId> cancelWaitingReminders(UUID teamId, UUID ticketId, UUID cancelledBy, String message,
            Instant now) {
        return LedgerException.of("cancel waiting reminders", () -> Jdbc.query(dataSource,
                "UPDATE background_task SET status = 'CANCELLED', execution_id = NULL, cancelled_at = ?, cancelled_by = ?,"
                        + " last_error = ?, updated_at = ? WHERE kind = 'REMINDER' AND status = 'WAITING' AND team_id = ?"
                        + " AND filters->>'ticketId' = ? RETURNING id, run",
                TaskJobId.ROW, now, cancelledBy, message, now, teamId, ticketId.toString()));
    }
}
