package com.teamdesk.tasks.outbox;

import com.teamdesk.tasks.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The relay's statements on {@code outbox_message} (R60), each one statement that commits on its own. A claim gives
 * the rows a relay lease (a fresh token and an expiry); every outcome is written only under that token, so a relay
 * whose lease expired (another took the row over) writes nothing.
 */
@ApplicationScoped
public class OutboxStore {
    private static final Jdbc.Table TABLE = Jdbc.Table.of("outbox_message");

    @Inject
    Jdbc jdbc;

    /**
     * Claims up to {@code limit} due PENDING rows nobody holds (oldest due first, {@code SKIP LOCKED}) under
     * {@code lease} until {@code leasedUntil}, and reads what their emails say.
     */
    List<Outgoing> claim(UUID lease, Instant now, Instant leasedUntil, int limit) {
        return jdbc.query(TABLE, "outbox claim", "WITH c AS (UPDATE outbox_message o SET relay_lease = ?, leased_until = ?,"
                + " updated_at = ? FROM (SELECT id FROM outbox_message WHERE state = 'PENDING' AND next_attempt_at <= ?"
                + " AND (leased_until IS NULL OR leased_until < ?) ORDER BY next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED) d"
                + " WHERE o.id = d.id RETURNING o.id, o.to_address, o.attempts, o.notification_id, o.recipient_id,"
                + " o.team_id) SELECT c.id, c.to_address, u.display_name, tm.name, k.title, t.kind, n.message, c.attempts,"
                + " n.created_at FROM c JOIN notification n ON n.id = c.notification_id JOIN app_user u ON u.id ="
                + " c.recipient_id JOIN team tm ON tm.id = c.team_id LEFT JOIN ticket k ON k.id = n.ticket_id"
                + " LEFT JOIN background_task t ON t.id = n.task_id ORDER BY n.created_at, c.id",
                rs -> new Outgoing(Jdbc.uuid(rs, 1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                        rs.getString(6), rs.getString(7), rs.getInt(8), Jdbc.instant(rs, 9)),
                lease, leasedUntil, now, now, now, limit);
    }

    /** The server took the message: SENT, with its reply. @return false when the lease no longer held */
    boolean sent(UUID id, UUID lease, String reply, Instant now) {
        return jdbc.update(TABLE, "outbox sent", "UPDATE outbox_message SET state = 'SENT', attempts = attempts + 1,"
                + " relay_lease = NULL, leased_until = NULL, server_reply = ?, last_error = NULL, sent_at = ?,"
                + " updated_at = ? WHERE id = ? AND relay_lease = ?", cut(reply), now, now, id, lease) == 1;
    }

    /**
     * A send that may be tried again: a transient refusal (4xx), a lost connection, or an unknown outcome (the
     * connection died after the final dot: {@code unknown}). The attempt counts; past {@code maxAttempts} the row is
     * FAILED, else due again at {@code next}.
     *
     * @return false when the lease no longer held
     */
    boolean retry(UUID id, UUID lease, String error, boolean unknown, Instant next, int maxAttempts, Instant now) {
        return jdbc.update(TABLE, "outbox retry", "UPDATE outbox_message SET state = CASE WHEN attempts + 1 >= ? THEN"
                + " 'FAILED' ELSE 'PENDING' END, attempts = attempts + 1, unknowns = unknowns + ?, relay_lease = NULL,"
                + " leased_until = NULL, last_error = ?, next_attempt_at = ?, updated_at = ? WHERE id = ? AND"
                + " relay_lease = ?", maxAttempts, unknown ? 1 : 0, cut(error), next, now, id, lease) == 1;
    }

    /** Refused for good (5xx, an address the server or we cannot use): FAILED. @return false when the lease no longer held */
    boolean failed(UUID id, UUID lease, String error, Instant now) {
        return jdbc.update(TABLE, "outbox failed", "UPDATE outbox_message SET state = 'FAILED', attempts = attempts + 1,"
                + " relay_lease = NULL, leased_until = NULL, last_error = ?, updated_at = ? WHERE id = ? AND"
                + " relay_lease = ?", cut(error), now, id, lease) == 1;
    }

    /**
     * Gives rows back without an attempt (the server could not be reached, or the relay stopped before offering them):
     * due again at {@code next}, their attempts unchanged (as R35 for the database: an outage burns no attempt).
     *
     * @return how many were given back
     */
    int release(List<UUID> ids, UUID lease, String why, Instant next, Instant now) {
        if (ids.isEmpty()) {
            return 0;
        }
        return jdbc.update(TABLE, "outbox release", "UPDATE outbox_message SET relay_lease = NULL, leased_until = NULL,"
                + " last_error = ?, next_attempt_at = ?, updated_at = ? WHERE id = ANY (?::uuid[]) AND relay_lease = ?",
                cut(why), next, now, Jdbc.array("uuid", ids.toArray()), lease);
    }

    /** @return {pending rows, age in seconds of the oldest due one (0 when none)} at {@code now} */
    double[] depth(Instant now) {
        return jdbc.query(TABLE, "outbox depth", "SELECT count(*), coalesce(extract(epoch FROM ? - min(next_attempt_at)), 0)"
                + " FROM outbox_message WHERE state = 'PENDING'", rs -> new double[] {rs.getLong(1),
                        Math.max(0, rs.getDouble(2))}, now).get(0);
    }

    private static String cut(String s) {
        if (s == null) {
            return null;
        }
        String one = s.replaceAll("[\\r\\n]+", " ").strip();
        return one.length() <= 1000 ? one : one.substring(0, 1000);
    }
}
