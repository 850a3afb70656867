package com.teamdesk.tasks.task.reminder;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.task.spi.KindLedger;
import com.teamdesk.tasks.task.spi.KindSchedules;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.team.JdbcTeamWrites;
import com.teamdesk.tasks.team.TicketClosed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional.TxType;
import jakarta.transaction.Transactional;
import java.util.List;
import java.util.UUID;
import java.util.logging.Logger;

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

    /** The name of the reminder's stored parameter that identifies its ticket. */
    private static final String TICKET_PARAM = "ticketId";

    @Inject
    KindSchedules schedules;

    @Inject
    KindLedger ledger;

    @Inject
    JdbcTeamWrites team;

    /** Cancels the closed ticket's waiting reminders inside the PATCH's transaction ({@code MANDATORY}). */
    @Transactional(TxType.MANDATORY)
    public void onTicketClosed(@Observes TicketClosed closed) {
        // R24: the ledger cancels the ticket's WAITING reminders, as its cancel does row by row
        List<TaskJobId> cancelled = ledger.cancelWaiting(ReminderHandler.KIND, closed.teamId(), TICKET_PARAM,
                closed.ticketId().toString(), closed.actorId(), MESSAGE, closed.at());
        for (TaskJobId job : cancelled) {
            team.appendSystemEvent(closed.teamId(), EVENT_KIND, closed.ticketId(), closed.actorId(), job.taskId(),
                    Jsons.PROVIDER.createObjectBuilder().add("taskId", job.taskId().toString()).add("run", job.run())
                            .add("reason", "ticket closed").build(), closed.at());
        }
        if (!cancelled.isEmpty()) {
            LOG.info(() -> "task.cancelled " + cancelled + ": ticket " + closed.ticketId() + " closed");
        }
        // issue 31 (R41): the reminder schedules that name the ticket stop, each with a system event
        List<UUID> disabled = schedules.disableWhere(ReminderHandler.KIND, closed.teamId(), TICKET_PARAM,
                closed.ticketId().toString(), SCHEDULE_REASON, closed.ticketId(), closed.actorId(), closed.at());
        if (!disabled.isEmpty()) {
            LOG.info(() -> "schedule.disabled " + disabled + ": ticket " + closed.ticketId() + " closed");
        }
    }
}
