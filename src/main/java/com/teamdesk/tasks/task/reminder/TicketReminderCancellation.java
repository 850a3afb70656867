package com.teamdesk.tasks.task.reminder;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.platform.SchemaMigration;
import com.teamdesk.tasks.task.JdbcTaskLedger;
import com.teamdesk.tasks.task.LedgerException;
import com.teamdesk.tasks.task.TaskJobId;
import com.teamdesk.tasks.team.TicketClosed;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * R24: when a ticket is CLOSED, its reminders that are not yet running (WAITING: scheduled, queued
 * or between attempts) are cancelled in the same transaction as the status change, each with a
 * system event {@value #EVENT_KIND}. A reminder already RUNNING is not cancelled here: it finds the
 * ticket closed under the team lock and is rejected ({@code TICKET_CLOSED}, R11). Queue jobs of the
 * cancelled runs are left to the claim (0 rows, R7) and to reconciliation (R23).
 */
@ApplicationScoped
public class TicketReminderCancellation {
    private static final Logger LOG = Logger.getLogger(TicketReminderCancellation.class.getName());

    /** Kind of the system event written for each reminder cancelled by a ticket's closing. */
    public static final String EVENT_KIND = "task.cancelled";

    /** {@code lastError} of a reminder cancelled because its ticket was closed. */
    public static final String MESSAGE = "Cancelled because the ticket was closed.";

    @Inject
    JdbcTaskLedger ledger;

    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

    /** Cancels the closed ticket's waiting reminders inside the PATCH's transaction ({@code MANDATORY}). */
    @Transactional(TxType.MANDATORY)
    public void onTicketClosed(@Observes TicketClosed closed) {
        List<TaskJobId> cancelled = ledger.cancelWaitingReminders(closed.teamId(), closed.ticketId(), closed.actorId(),
                MESSAGE, closed.at());
        if (cancelled.isEmpty()) {
            return;
        }
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO system_event (team_id, kind, ticket_id, actor_id, task_id, payload, created_at)"
                        + " VALUES (?, ?, ?, ?, ?, ?::jsonb, ?)")) {
            for (TaskJobId job : cancelled) {
                ps.setObject(1, closed.teamId());
                ps.setString(2, EVENT_KIND);
                ps.setObject(3, closed.ticketId());
                ps.setObject(4, closed.actorId());
                ps.setObject(5, job.taskId());
                ps.setString(6, Jsons.PROVIDER.createObjectBuilder().add("taskId", job.taskId().toString())
                        .add("run", job.run()).add("reason", "ticket closed").build().toString());
                ps.setObject(7, OffsetDateTime.ofInstant(closed.at(), ZoneOffset.UTC));
                ps.addBatch();
            }
            ps.executeBatch();
        } catch (SQLException e) {
            throw new LedgerException("reminder cancel event", e);
        }
        LOG.info(() -> "task.cancelled " + cancelled + ": ticket " + closed.ticketId() + " closed");
    }
}
