package com.teamdesk.tasks.team;

import com.teamdesk.tasks.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Reads a member's notifications, newest first, in keyset order {@code (created_at, id)} descending. When
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
        String sql = "SELECT id, team_id, recipient_id, task_id, ticket_id, message, created_at, read_at"
                + " FROM notification WHERE recipient_id = ?"
                + (after == null ? "" : " AND (created_at, id) < (?, ?)")
                + " ORDER BY created_at DESC, id DESC LIMIT ?";
        List<Object> args = new ArrayList<>(4);
        args.add(recipientId);
        if (after != null) {
            args.add(after.createdAt());
            args.add(after.id());
        }
        args.add(limit);
        return jdbc.query(Tables.NOTIFICATION, "notification read", sql, rs -> new NotificationRow(Jdbc.uuid(rs, 1),
                Jdbc.uuid(rs, 2), Jdbc.uuid(rs, 3), Jdbc.uuid(rs, 4), Jdbc.uuid(rs, 5), rs.getString(6),
                Jdbc.instant(rs, 7), Jdbc.instant(rs, 8)), args.toArray());
    }
}
