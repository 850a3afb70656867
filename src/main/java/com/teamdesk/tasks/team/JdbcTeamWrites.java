package com.teamdesk.tasks.team;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.platform.TableAccessException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The team's writes made by other packages (a reminder, a ticket's closing), and the reads made
 * under the team lock, through JDBC. Every method joins the caller's JTA transaction
 * ({@code MANDATORY}: outside one it throws {@link jakarta.transaction.TransactionalException}),
 * so the caller decides what commits together (R14, R24). Each write is one statement; a count
 * that cannot be right throws {@link TableAccessException} (an {@link IllegalStateException}) naming the
 * table, as does an SQL error.
 */
@ApplicationScoped
@Transactional(TxType.MANDATORY)
public class JdbcTeamWrites {

    @Inject
    Jdbc jdbc;

    /**
     * A ticket as read under its row lock.
     *
     * @param status      its status
     * @param assigneeId  its assignee, or null
     * @param requesterId who asked
     */
    public record LockedTicket(TicketStatus status, UUID assigneeId, UUID requesterId) {
    }

    /**
     * Takes the team lock until the transaction ends: the team row {@code FOR NO KEY UPDATE}. It
     * protects the team's tickets, memberships and reminders (R14); a ticket change and a
     * reminder's version bump never interleave. A missing team locks nothing. The one statement that
     * takes it: every transaction that needs the team lock (a ticket change, a reminder, a digest, a new
     * schedule) calls this.
     */
    public void lockTeam(UUID teamId) {
        jdbc.update(Tables.TEAM, "team lock", "SELECT 1 FROM team WHERE id = ? FOR NO KEY UPDATE", teamId);
    }

    /**
     * {@link #lockTeam(UUID)} with bounded holds (issue 28): waiting for the lock ends after {@code lockWaitMs}
     * ({@code lock_timeout}, SQLState 55P03), and PostgreSQL ends the session, releasing every lock, when the
     * transaction sits idle for {@code idleMs} ({@code idle_in_transaction_session_timeout}: a JVM frozen inside
     * it, by a GC pause, SIGSTOP or a partition, cannot hold the team hostage). Both are {@code SET LOCAL}: they
     * end with the transaction. Either failure rolls the transaction back; the caller's attempt is retried.
     *
     * @param lockWaitMs longest wait for the team lock, in ms (&gt; 0)
     * @param idleMs     longest idle pause inside the transaction, in ms (&gt; 0)
     */
    public void lockTeam(UUID teamId, long lockWaitMs, long idleMs) {
        jdbc.update(Jdbc.SERVER, "team lock settings", "SELECT set_config('lock_timeout', ?, true),"
                + " set_config('idle_in_transaction_session_timeout', ?, true)", lockWaitMs + "ms", idleMs + "ms");
        lockTeam(teamId);
    }

    /**
     * Locks a ticket of the team {@code FOR UPDATE} and reads it.
     *
     * @return its state, or empty when no such ticket is in the team
     */
    public Optional<LockedTicket> lockTicket(UUID ticketId, UUID teamId) {
        return jdbc.queryOne(Tables.TICKET, "ticket lock",
                "SELECT status, assignee_id, requester_id FROM ticket WHERE id = ? AND team_id = ? FOR UPDATE",
                rs -> new LockedTicket(TicketStatus.valueOf(rs.getString(1)), Jdbc.uuid(rs, 2), Jdbc.uuid(rs, 3)),
                ticketId, teamId);
    }

    /** @return the STAFF and OWNER members of the team, by user id (read in the caller's transaction) */
    public List<UUID> staffIds(UUID teamId) {
        return jdbc.query(Tables.MEMBERSHIP, "staff read",
                "SELECT user_id FROM membership WHERE team_id = ? AND role IN ('OWNER', 'STAFF') ORDER BY user_id",
                rs -> Jdbc.uuid(rs, 1), teamId);
    }

    /** @return the OWNER members of the team, by user id (read in the caller's transaction) */
    public List<UUID> ownerIds(UUID teamId) {
        return jdbc.query(Tables.MEMBERSHIP, "owner read",
                "SELECT user_id FROM membership WHERE team_id = ? AND role = 'OWNER' ORDER BY user_id",
                rs -> Jdbc.uuid(rs, 1), teamId);
    }

    /**
     * Bumps a ticket's {@code version} by one and moves its {@code updatedAt}.
     *
     * @throws TableAccessException when the ticket does not exist (callers hold its lock: it vanished under it)
     */
    public void bumpVersion(UUID ticketId, Instant now) {
        jdbc.updateExpecting(1, Tables.TICKET, "version bump", "UPDATE ticket SET version = version + 1, updated_at = ?"
                + " WHERE id = ?", now, ticketId);
    }

    /**
     * Adds a notification, at most one per (task, recipient): a replay adds nothing. Issue 54 (R60): in the same
     * statement, its email in the outbox — PENDING when the recipient has an address and has not turned email off for
     * the task's kind, else NO_ADDRESS or OPTED_OUT (recorded, never sent) — so that it commits or rolls back with the
     * caller's transaction (a lost lease rolls both back).
     *
     * @return true when it was added, false when that task had already notified that recipient
     */
    public boolean addNotification(UUID teamId, UUID recipientId, UUID taskId, UUID ticketId, String message,
            Instant now) {
        return jdbc.update(Tables.NOTIFICATION, "notification insert", "WITH n AS (INSERT INTO notification (id, team_id,"
                + " recipient_id, task_id, ticket_id, message, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
                + " ON CONFLICT (task_id, recipient_id) DO NOTHING RETURNING id, team_id, recipient_id, task_id, created_at)"
                + " INSERT INTO outbox_message (id, notification_id, team_id, recipient_id, channel, state, to_address,"
                + " next_attempt_at, created_at, updated_at) SELECT ?, n.id, n.team_id, n.recipient_id, 'EMAIL',"
                + " CASE WHEN u.email IS NULL THEN 'NO_ADDRESS' WHEN NOT coalesce(p.email, true) THEN 'OPTED_OUT'"
                + " ELSE 'PENDING' END, u.email, n.created_at, n.created_at, n.created_at FROM n"
                + " JOIN app_user u ON u.id = n.recipient_id LEFT JOIN background_task t ON t.id = n.task_id"
                + " LEFT JOIN notification_preference p ON p.user_id = n.recipient_id AND p.kind = t.kind",
                UUID.randomUUID(), teamId, recipientId, taskId, ticketId, message, now, UUID.randomUUID()) == 1;
    }

    /**
     * Appends one event to the team's audit log.
     *
     * @param kind     e.g. {@code ticket.reminder_sent}
     * @param ticketId the ticket concerned, or null
     * @param actorId  who caused it
     * @param taskId   the task concerned, or null
     * @param payload  details, stored as {@code jsonb}
     */
    public void appendSystemEvent(UUID teamId, String kind, UUID ticketId, UUID actorId, UUID taskId,
            JsonObject payload, Instant at) {
        jdbc.update(Tables.SYSTEM_EVENT, "system event insert", "INSERT INTO system_event (team_id, kind, ticket_id, actor_id, task_id, payload,"
                + " created_at) VALUES (?, ?, ?, ?, ?, ?::jsonb, ?)", teamId, kind, ticketId, actorId, taskId,
                payload.toString(), at);
    }
}
