package com.teamdesk.tasks.team;

import com.teamdesk.tasks.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Reads a team's system events, newest first (by the increasing {@code id}). When PostgreSQL cannot answer
 * it throws {@link com.teamdesk.tasks.platform.TableAccessException}.
 */
@ApplicationScoped
public class JdbcSystemEventReader {

    /** A row of {@link #SELECT}. */
    private static final Jdbc.Row<SystemEventRow> ROW = rs -> new SystemEventRow(rs.getLong(1), Jdbc.uuid(rs, 2),
            rs.getString(3), Jdbc.uuid(rs, 4), Jdbc.uuid(rs, 5), Jdbc.uuid(rs, 6), rs.getString(7),
            Jdbc.offsetDateTime(rs, 8).toInstant());

    private static final String SELECT = "SELECT id, team_id, kind, ticket_id, actor_id, task_id, payload::text, created_at";

    @Inject
    Jdbc jdbc;

    /**
     * @param ticketId only events of this ticket, or null for all
     * @param beforeId only events with a smaller id (the previous page's last), or null
     * @param limit    rows to read (&gt; 0)
     */
    public List<SystemEventRow> list(UUID teamId, UUID ticketId, Long beforeId, int limit) {
        String sql = SELECT + " FROM system_event WHERE team_id = ?"
                + (ticketId == null ? "" : " AND ticket_id = ?")
                + (beforeId == null ? "" : " AND id < ?")
                + " ORDER BY id DESC LIMIT ?";
        List<Object> args = new ArrayList<>(4);
        args.add(teamId);
        if (ticketId != null) {
            args.add(ticketId);
        }
        if (beforeId != null) {
            args.add(beforeId);
        }
        args.add(limit);
        return jdbc.query(Tables.SYSTEM_EVENT, "system event read", sql, ROW, args.toArray());
    }

    /**
     * A task's events of the given kinds, newest first (issue 32: the task's timeline).
     *
     * @param kinds    the event kinds to read (non-empty)
     * @param beforeId only events with a smaller id (the previous page's last), or null
     * @param limit    rows to read (&gt; 0)
     */
    public List<SystemEventRow> ofTask(UUID taskId, List<String> kinds, Long beforeId, int limit) {
        String sql = SELECT + " FROM system_event WHERE task_id = ? AND kind IN (" + String.join(", ",
                        java.util.Collections.nCopies(kinds.size(), "?")) + ")"
                + (beforeId == null ? "" : " AND id < ?") + " ORDER BY id DESC LIMIT ?";
        List<Object> args = new ArrayList<>();
        args.add(taskId);
        args.addAll(kinds);
        if (beforeId != null) {
            args.add(beforeId);
        }
        args.add(limit);
        return jdbc.query(Tables.SYSTEM_EVENT, "system event read", sql, ROW, args.toArray());
    }
}
