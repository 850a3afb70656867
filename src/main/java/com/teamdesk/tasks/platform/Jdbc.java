package com.teamdesk.tasks.platform;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * Column readers that use the JDBC getters Payara's pooled result-set wrapper forwards directly.
 * Its {@code getObject(int, Class)} goes through reflection ({@code Class.getDeclaredMethod}) on
 * every call, which was the top CPU frame of a 50 000-row export (bench/notes/P3.md).
 * Also the one way our JDBC code binds parameters ({@link #bind}) and runs a plain statement
 * ({@link #update}).
 */
public final class Jdbc {
    private Jdbc() {
    }

    /** @return a {@code uuid} column (pgjdbc answers {@link UUID}), or null */
    public static UUID uuid(ResultSet rs, int column) throws SQLException {
        return (UUID) rs.getObject(column);
    }

    /** @return a {@code timestamptz} column as an instant, or null */
    public static Instant instant(ResultSet rs, int column) throws SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    /** @return a {@code timestamptz} column at UTC, or null */
    public static OffsetDateTime offsetDateTime(ResultSet rs, int column) throws SQLException {
        Instant i = instant(rs, column);
        return i == null ? null : i.atOffset(ZoneOffset.UTC);
    }

    /**
     * Binds {@code args} to the parameters {@code first, first + 1, …}: null as SQL NULL of an
     * unspecified type, an {@link Instant} as {@code timestamptz} at UTC, anything else as is.
     */
    public static void bind(PreparedStatement ps, int first, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            int idx = first + i;
            if (a == null) {
                ps.setNull(idx, Types.OTHER);
            } else if (a instanceof Instant t) {
                ps.setObject(idx, OffsetDateTime.ofInstant(t, ZoneOffset.UTC));
            } else {
                ps.setObject(idx, a);
            }
        }
    }

    /**
     * Runs one statement with {@code args} bound by {@link #bind} on the caller's connection.
     *
     * @return the row count (0 for a statement that returns rows, e.g. {@code SELECT … FOR UPDATE})
     */
    public static int update(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, 1, args);
            if (ps.execute()) {
                ps.getResultSet().close();
                return 0;
            }
            return ps.getUpdateCount();
        }
    }
}
