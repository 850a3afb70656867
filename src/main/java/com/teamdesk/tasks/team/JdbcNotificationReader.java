package com.teamdesk.tasks.team;

import com.teamdesk.tasks.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Reads a member's notifications, newest first, in keyset order {@code (created_at, id)} descending, each with its
 * email's delivery (R60: its outbox row, unique per notification and channel). When
 * PostgreSQL cannot answer it throws {@link com.teamdesk.tasks.platform.TableAccessException}.
 */
@ApplicationScoped
public class JdbcNotificationReader {

    @Inject
    Jdbc jdbc;

    /**
     * @param after position of the last row of the previous page (exclusive), or null for the first
     * @param limit rows to read (&gt; 0)
     */
    public List<NotificationRow> list(UUID recipientId, KeysetCursor after, int limit) {
        String sql = "SELECT n.id, n.team_id, n.recipient_id, n.task_id, n.ticket_id, n.message, n.created_at, n.read_at,"
                + " o.channel, o.state, o.attempts, o.last_error, o.sent_at FROM notification n LEFT JOIN outbox_message o"
                + " ON o.notification_id = n.id AND o.channel = 'EMAIL' WHERE n.recipient_id = ?"
                + (after == null ? "" : " AND (n.created_at, n.id) < (?, ?)")
                + " ORDER BY n.created_at DESC, n.id DESC LIMIT ?";
        List<Object> args = new ArrayList<>(4);
        args.add(recipientId);
        if (after != null) {
            args.add(after.createdAt());
            args.add(after.id());
        }
        args.add(limit);
        return jdbc.query(Tables.NOTIFICATION, "notification read", sql, rs -> new NotificationRow(Jdbc.uuid(rs, 1),
                Jdbc.uuid(rs, 2), Jdbc.uuid(rs, 3), Jdbc.uuid(rs, 4), Jdbc.uuid(rs, 5), rs.getString(6),
                Jdbc.instant(rs, 7), Jdbc.instant(rs, 8), rs.getString(9) == null ? null
                        : new NotificationRow.Delivery(rs.getString(9), rs.getString(10), rs.getInt(11), rs.getString(12),
                                Jdbc.instant(rs, 13))), args.toArray());
    }
}
