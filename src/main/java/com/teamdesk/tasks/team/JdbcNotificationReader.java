package com.teamdesk.tasks.team;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.platform.SchemaMigration;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/** Reads a member's notifications, newest first, in keyset order {@code (created_at, id)} descending. */
@ApplicationScoped
public class JdbcNotificationReader {

    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

    /**
     * @param after position of the last row of the previous page (exclusive), or null for the first
     * @param limit rows to read (&gt; 0)
     */
    public List<NotificationRow> list(UUID recipientId, KeysetCursor after, int limit) {
        String sql = "SELECT id, team_id, recipient_id, task_id, ticket_id, message, created_at, read_at"
                + " FROM notification WHERE recipient_id = ?"
                + (after == null ? "" : " AND (created_at, id) < (?, ?)")
                + " ORDER BY created_at DESC, id DESC LIMIT ?";
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            ps.setObject(i++, recipientId);
            if (after != null) {
                ps.setObject(i++, OffsetDateTime.ofInstant(after.createdAt(), ZoneOffset.UTC));
                ps.setObject(i++, after.id());
            }
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
                List<NotificationRow> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(new NotificationRow(Jdbc.uuid(rs, 1), Jdbc.uuid(rs, 2),
                            Jdbc.uuid(rs, 3), Jdbc.uuid(rs, 4), Jdbc.uuid(rs, 5),
                            rs.getString(6), instant(rs, 7), instant(rs, 8)));
                }
                return out;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("notification read failed: " + e.getMessage(), e);
        }
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime t = Jdbc.offsetDateTime(rs, column);
        return t == null ? null : t.toInstant();
    }
}
