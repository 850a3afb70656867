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

/**
 * Reads a team's tickets in keyset order {@code (created_at, id)}, a batch at a time, never all at
 * once (R13). Used by the ticket list API and by the export. Read-only; joins no transaction of
 * its own beyond the caller's.
 */
@ApplicationScoped
public class JdbcTicketReader {

    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

    /**
     * Counts the tickets a filter matches.
     *
     * @param visibleTo when not null, only tickets this user requested or is assigned to (SELF scope)
     */
    public long count(UUID teamId, UUID visibleTo, TicketFilter filter) {
        Sql sql = where(new Sql("SELECT count(*) FROM ticket t"), teamId, visibleTo, filter);
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = sql.prepare(c);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("ticket count failed: " + e.getMessage(), e);
        }
    }

    /**
     * Reads the next batch after the keyset cursor, ascending by (createdAt, id).
     *
     * @param afterCreatedAt createdAt of the last row of the previous batch, or null for the first
     * @param afterId        id of that row, or null
     * @param limit          batch size (&gt; 0)
     */
    public List<TicketRow> readBatch(UUID teamId, UUID visibleTo, TicketFilter filter, Instant afterCreatedAt,
            UUID afterId, int limit) {
        Sql sql = where(new Sql("SELECT t.id, t.team_id, t.title, t.body, t.status, t.priority, t.assignee_id,"
                + " a.username, t.requester_id, r.username, t.created_at, t.updated_at, t.version FROM ticket t"
                + " LEFT JOIN app_user a ON a.id = t.assignee_id JOIN app_user r ON r.id = t.requester_id"),
                teamId, visibleTo, filter);
        if (afterCreatedAt != null) {
            sql.and("(t.created_at, t.id) > (?, ?)", at(afterCreatedAt), afterId);
        }
        sql.text.append(" ORDER BY t.created_at, t.id LIMIT ?");
        sql.args.add(limit);
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = sql.prepare(c);
                ResultSet rs = ps.executeQuery()) {
            List<TicketRow> out = new ArrayList<>(limit);
            while (rs.next()) {
                out.add(new TicketRow(Jdbc.uuid(rs, 1), Jdbc.uuid(rs, 2), rs.getString(3),
                        rs.getString(4), TicketStatus.valueOf(rs.getString(5)), Priority.valueOf(rs.getString(6)),
                        Jdbc.uuid(rs, 7), rs.getString(8), Jdbc.uuid(rs, 9), rs.getString(10),
                        Jdbc.offsetDateTime(rs, 11).toInstant(),
                        Jdbc.offsetDateTime(rs, 12).toInstant(), rs.getInt(13)));
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException("ticket read failed: " + e.getMessage(), e);
        }
    }

    private static Sql where(Sql sql, UUID teamId, UUID visibleTo, TicketFilter f) {
        sql.text.append(" WHERE t.team_id = ?");
        sql.args.add(teamId);
        if (visibleTo != null) {
            sql.and("(t.requester_id = ? OR t.assignee_id = ?)", visibleTo, visibleTo);
        }
        if (!f.statuses().isEmpty()) {
            // Cast: a bare String[] would be spread into the varargs as separate parameters.
            sql.and("t.status = ANY (?)", (Object) f.statuses().stream().map(Enum::name).toArray(String[]::new));
        }
        if (f.assigneeId() != null) {
            sql.and("t.assignee_id = ?", f.assigneeId());
        }
        if (f.createdFrom() != null) {
            sql.and("t.created_at >= ?", at(f.createdFrom()));
        }
        if (f.createdTo() != null) {
            sql.and("t.created_at < ?", at(f.createdTo()));
        }
        if (f.q() != null) {
            String like = "%" + f.q().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
            sql.and("(t.title ILIKE ? OR t.body ILIKE ?)", like, like);
        }
        return sql;
    }

    private static OffsetDateTime at(Instant i) {
        return OffsetDateTime.ofInstant(i, ZoneOffset.UTC);
    }

    /** A statement under construction: text and positional arguments. */
    private static final class Sql {
        final StringBuilder text;
        final List<Object> args = new ArrayList<>();

        Sql(String head) {
            text = new StringBuilder(head);
        }

        void and(String cond, Object... a) {
            text.append(" AND ").append(cond);
            args.addAll(List.of(a));
        }

        PreparedStatement prepare(Connection c) throws SQLException {
            PreparedStatement ps = c.prepareStatement(text.toString());
            for (int i = 0; i < args.size(); i++) {
                Object a = args.get(i);
                if (a instanceof String[] arr) {
                    ps.setArray(i + 1, c.createArrayOf("text", arr));
                } else {
                    ps.setObject(i + 1, a);
                }
            }
            return ps;
        }
    }
}
