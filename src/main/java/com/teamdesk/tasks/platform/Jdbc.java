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
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

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

    /** Maps the current row of a result set. */
    @FunctionalInterface
    public interface Row<T> {
        /** @return the value of the current row */
        T map(ResultSet rs) throws SQLException;
    }

    /**
     * Runs one query with {@code args} bound by {@link #bind} on a connection of {@code ds} (joining the
     * caller's JTA transaction when there is one) and maps every row.
     *
     * @return the rows, in the order the statement returned them
     */
    public static <T> List<T> query(DataSource ds, String sql, Row<T> row, Object... args) throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, 1, args);
            try (ResultSet rs = ps.executeQuery()) {
                List<T> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(row.map(rs));
                }
                return out;
            }
        }
    }

    /** @return the first column of the one row of a query such as {@code SELECT count(*) …} */
    public static int queryInt(DataSource ds, String sql, Object... args) throws SQLException {
        List<Integer> rows = query(ds, sql, rs -> rs.getInt(1), args);
        if (rows.size() != 1) {
            throw new SQLException("expected one row, got " + rows.size() + ": " + sql);
        }
        return rows.get(0);
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
