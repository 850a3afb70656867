package com.teamdesk.tasks.team;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.platform.SchemaMigration;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/** Reads a team's system events, newest first (by the increasing {@code id}). */
@ApplicationScoped
public class JdbcSystemEventReader {

    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

    /**
     * @param ticketId only events of this ticket, or null for all
     * @param beforeId only events with a smaller id (the previous page's last), or null
     * @param limit    rows to read (&gt; 0)
     */
    public List<SystemEventRow> list(UUID teamId, UUID ticketId, Long beforeId, int limit) {
        String sql = "SELECT id, team_id, kind, ticket_id, actor_id, task_id, payload::text, created_at"
                + " FROM system_event WHERE team_id = ?"
                + (ticketId == null ? "" : " AND ticket_id = ?")
                + (beforeId == null ? "" : " AND id < ?")
                + " ORDER BY id DESC LIMIT ?";
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            ps.setObject(i++, teamId);
            if (ticketId != null) {
                ps.setObject(i++, ticketId);
            }
            if (beforeId != null) {
                ps.setLong(i++, beforeId);
            }
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
                List<SystemEventRow> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(new SystemEventRow(rs.getLong(1), Jdbc.uuid(rs, 2), rs.getString(3),
                            Jdbc.uuid(rs, 4), Jdbc.uuid(rs, 5), Jdbc.uuid(rs, 6),
                            rs.getString(7), Jdbc.offsetDateTime(rs, 8).toInstant()));
                }
                return out;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("system event read failed: " + e.getMessage(), e);
        }
    }

    /**
     * A task's events of the given kinds, newest first (issue 32: the task's timeline).
     *
     * @param kinds    the event kinds to read (non-empty)
     * @param beforeId only events with a smaller id (the previous page's last), or null
     * @param limit    rows to read (&gt; 0)
     */
    public List<SystemEventRow> ofTask(UUID taskId, List<String> kinds, Long beforeId, int limit) {
        String sql = "SELECT id, team_id, kind, ticket_id, actor_id, task_id, payload::text, created_at"
                + " FROM system_event WHERE task_id = ? AND kind IN (" + String.join(", ",
                        java.util.Collections.nCopies(kinds.size(), "?")) + ")"
                + (beforeId == null ? "" : " AND id < ?") + " ORDER BY id DESC LIMIT ?";
        List<Object> args = new ArrayList<>();
        args.add(taskId);
        args.addAll(kinds);
        if (beforeId != null) {
            args.add(beforeId);
        }
        args.add(limit);
        try {
            return Jdbc.query(dataSource, sql, rs -> new SystemEventRow(rs.getLong(1), Jdbc.uuid(rs, 2), rs.getString(3),
                    Jdbc.uuid(rs, 4), Jdbc.uuid(rs, 5), Jdbc.uuid(rs, 6), rs.getString(7),
                    Jdbc.offsetDateTime(rs, 8).toInstant()), args.toArray());
        } catch (SQLException e) {
            throw new IllegalStateException("system event read failed: " + e.getMessage(), e);
        }
    }
}
