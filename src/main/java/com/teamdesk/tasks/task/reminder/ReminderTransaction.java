package com.teamdesk.tasks.task.reminder;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.platform.SchemaMigration;
import com.teamdesk.tasks.task.BackgroundTask;
import com.teamdesk.tasks.task.JdbcTaskLedger;
import com.teamdesk.tasks.task.Lease;
import com.teamdesk.tasks.task.LeaseLost;
import com.teamdesk.tasks.task.PausePoint;
import com.teamdesk.tasks.task.PausePoints;
import com.teamdesk.tasks.task.TaskRejected;
import com.teamdesk.tasks.task.TaskRejected.Reason;
import com.teamdesk.tasks.task.TaskScope;
import com.teamdesk.tasks.team.Role;
import com.teamdesk.tasks.team.TeamAccess;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * R14: the reminder's side effects and the task's completion in ONE container-managed JTA
 * transaction, which the caller begins through {@link com.teamdesk.tasks.platform.Transactions}
 * ({@code MANDATORY} here: without it the writes would commit one by one). Under the team lock it inserts the notification(s) (unique per task and recipient),
 * bumps the ticket's {@code version}, appends a system event, and completes the task with a
 * lease-checked UPDATE. When that UPDATE does not match exactly one row, {@link LeaseLost} is
 * thrown OUT of the transaction so that the container rolls back all four writes: returning
 * normally would commit them. The lease read made earlier under the lock is only an early exit;
 * it never replaces the check at commit.
 */
@ApplicationScoped
public class ReminderTransaction {

    /** Kind of the system event appended by a reminder. */
    public static final String EVENT_KIND = "ticket.reminder_sent";

    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

    @Inject
    JdbcTaskLedger ledger;

    @Inject
    TeamAccess access;

    @Inject
    PausePoints pausePoints;

    @Inject
    Clock clock;

    /**
     * Applies the reminder of {@code task} under {@code lease}, all or nothing.
     *
     * @return how many notifications were inserted
     * @throws LeaseLost    the lease no longer matches (early read or completion count != 1); rolled back
     * @throws TaskRejected the ticket is gone or closed, nobody to notify, or the owner lost permission;
     *                      rolled back
     */
    @Transactional(TxType.MANDATORY)
    public int apply(Lease lease, BackgroundTask task, ReminderParams params) {
        Instant now = clock.instant();
        try (Connection c = dataSource.getConnection()) {
            execute(c, "SELECT 1 FROM team WHERE id = ? FOR NO KEY UPDATE", task.teamId());
            ledger.readUnderLease(lease);
            pausePoints.reached(PausePoint.REMINDER_AFTER_LEASE_READ, lease);

            Role ownerRole = access.roleOf(task.teamId(), task.ownerId())
                    .orElseThrow(() -> new TaskRejected(Reason.PERMISSION_LOST, "owner is no longer a member"));
            TicketState ticket = lockTicket(c, params.ticketId(), task.teamId());
            if (task.scope() == TaskScope.TEAM ? !ownerRole.isStaff()
                    : !TeamAccess.canSee(ownerRole, task.ownerId(), ticket.requesterId(), ticket.assigneeId())) {
                throw new TaskRejected(Reason.PERMISSION_LOST, "owner may no longer see the ticket");
            }
            List<UUID> recipients = recipients(c, params, task.teamId(), ticket);
            int inserted = 0;
            for (UUID recipient : recipients) {
                inserted += update(c, "INSERT INTO notification (id, team_id, recipient_id, task_id, ticket_id, message,"
                        + " created_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (task_id, recipient_id) DO NOTHING",
                        UUID.randomUUID(), task.teamId(), recipient, task.id(), params.ticketId(), params.message(), at(now));
            }
            if (update(c, "UPDATE ticket SET version = version + 1, updated_at = ? WHERE id = ?", at(now),
                    params.ticketId()) != 1) {
                throw new IllegalStateException("ticket " + params.ticketId() + " vanished under the team lock");
            }
            update(c, "INSERT INTO system_event (team_id, kind, ticket_id, actor_id, task_id, payload, created_at)"
                    + " VALUES (?, ?, ?, ?, ?, ?::jsonb, ?)", task.teamId(), EVENT_KIND, params.ticketId(), task.ownerId(),
                    task.id(), Jsons.PROVIDER.createObjectBuilder().add("taskId", task.id().toString()).add("run", task.run())
                            .add("recipients", recipients.size()).add("message", params.message()).build().toString(),
                    at(now));
            pausePoints.reached(PausePoint.REMINDER_AFTER_EVENT_INSERT, lease);
            pausePoints.reached(PausePoint.REMINDER_BEFORE_COMPLETE, lease);
            complete(lease, now);
            pausePoints.reached(PausePoint.REMINDER_AFTER_COMPLETE, lease);
            return inserted;
        } catch (SQLException e) {
            throw new IllegalStateException("reminder transaction failed: " + e.getMessage(), e);
        }
    }

    /**
     * The lease-checked completion, inside the transaction. Throws {@link LeaseLost} on a count
     * other than 1 so the container rolls back (R14). Protected only so that a test can prove that
     * a variant which returns here instead would commit the side effects.
     */
    protected void complete(Lease lease, Instant now) {
        ledger.completeReminder(lease, now);
    }

    private record TicketState(String status, UUID assigneeId, UUID requesterId) {
    }

    private static TicketState lockTicket(Connection c, UUID ticketId, UUID teamId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT status, assignee_id, requester_id FROM ticket WHERE id = ? AND team_id = ? FOR UPDATE")) {
            ps.setObject(1, ticketId);
            ps.setObject(2, teamId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new TaskRejected(Reason.TICKET_GONE, "ticket " + ticketId);
                }
                TicketState t = new TicketState(rs.getString(1), Jdbc.uuid(rs, 2), Jdbc.uuid(rs, 3));
                if ("CLOSED".equals(t.status())) {
                    throw new TaskRejected(Reason.TICKET_CLOSED, "ticket " + ticketId);
                }
                return t;
            }
        }
    }

    private static List<UUID> recipients(Connection c, ReminderParams p, UUID teamId, TicketState ticket)
            throws SQLException {
        List<UUID> out = new ArrayList<>();
        if (p.recipients() == ReminderParams.Recipients.ASSIGNEE) {
            if (ticket.assigneeId() != null) {
                out.add(ticket.assigneeId());
            }
        } else {
            try (PreparedStatement ps = c.prepareStatement("SELECT user_id FROM membership WHERE team_id = ?"
                    + " AND role IN ('OWNER', 'STAFF') ORDER BY user_id")) {
                ps.setObject(1, teamId);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(Jdbc.uuid(rs, 1));
                    }
                }
            }
        }
        if (out.isEmpty()) {
            throw new TaskRejected(Reason.NO_RECIPIENTS, "nobody to notify");
        }
        return out;
    }

    private static void execute(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            ps.executeQuery().close();
        }
    }

    private static int update(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            return ps.executeUpdate();
        }
    }

    private static OffsetDateTime at(Instant i) {
        return OffsetDateTime.ofInstant(i, ZoneOffset.UTC);
    }
}
