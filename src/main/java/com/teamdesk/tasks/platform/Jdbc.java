package com.teamdesk.tasks.platform;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.InputStream;
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
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The one way our code talks JDBC to the application's datasource ({@link AppDataSource#NAME}): it borrows
 * the connection, prepares the statement, binds the arguments ({@link #bind}), checks the row count and turns
 * an {@link SQLException} into an error that names the table and what was attempted ({@link Table}). Each
 * call is one statement on one borrowed connection; inside a JTA transaction the container hands out the
 * transaction's enlisted connection, so the call joins it (R14), outside one it auto-commits. Code that needs
 * the connection itself for one unit of work (COPY, LISTEN, several statements on one session, a probe)
 * gets it from {@link #withConnection}.
 *
 * <p>Also the column readers that use the JDBC getters Payara's pooled result-set wrapper forwards directly:
 * its {@code getObject(int, Class)} goes through reflection ({@code Class.getDeclaredMethod}) on every call,
 * which was the top CPU frame of a 50 000-row export (bench/notes/P3.md).
 */
@ApplicationScoped
public class Jdbc {
    /** For statements that read no table: the server's settings, its clock, a connection probe. */
    public static final Table SERVER = Table.of("(server)");

    @Resource(lookup = AppDataSource.NAME)
    DataSource dataSource;

    /** For CDI. */
    public Jdbc() {
    }

    /** Statements on {@code dataSource} (tools and tests outside a container). */
    public Jdbc(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * Reports an SQL error of a statement on a table.
     */
    @FunctionalInterface
    public interface Failure {
        /** @return the exception to throw for {@code cause}, met while doing {@code what} on {@code table} */
        RuntimeException of(String table, String what, SQLException cause);
    }

    /**
     * A table, as its statements' errors name it.
     *
     * @param name    the table's name, e.g. {@code task_schedule}
     * @param failure what an SQL error on it throws
     */
    public record Table(String name, Failure failure) {
        /** @return the table {@code name}, whose SQL errors throw {@link TableAccessException} */
        public static Table of(String name) {
            return new Table(name, TableAccessException::new);
        }

        RuntimeException failed(String what, SQLException cause) {
            return failure.of(name, what, cause);
        }
    }

    /**
     * One unit of work on a borrowed connection.
     *
     * @param <T> its result
     * @param <X> a checked exception of its own it may throw besides {@link SQLException} (e.g. the
     *            {@code IOException} of a COPY), passed to the caller unchanged; inferred as
     *            {@link RuntimeException} when it throws none
     */
    @FunctionalInterface
    public interface Work<T, X extends Exception> {
        /** @return the work's result; the connection is given back afterwards */
        T run(Connection c) throws SQLException, X;
    }

    /**
     * Runs one statement ({@code INSERT}, {@code UPDATE}, {@code DELETE}, or a {@code SELECT} for its locks or
     * side effects, whose rows are dropped).
     *
     * @param what what it does, for the error, e.g. {@code advance schedule}
     * @return the row count (0 for a statement that returns rows)
     * @throws RuntimeException {@code table}'s failure (a {@link TableAccessException} unless the table says
     *                          otherwise) when PostgreSQL answers with an error
     */
    public int update(Table table, String what, String sql, Object... args) {
        return withConnection(table, what, c -> update(c, sql, args));
    }

    /**
     * {@link #update(Table, String, String, Object...)} that must change exactly {@code expected} rows.
     *
     * @return {@code expected}
     * @throws TableAccessException naming the table and {@code what}, when another number of rows changed
     */
    public int updateExpecting(int expected, Table table, String what, String sql, Object... args) {
        int n = update(table, what, sql, args);
        if (n != expected) {
            throw new TableAccessException(table.name(), what, n, expected);
        }
        return n;
    }

    /**
     * Runs one query and maps every row.
     *
     * @return the rows, in the order the statement returned them
     * @throws RuntimeException {@code table}'s failure when PostgreSQL answers with an error
     */
    public <T> List<T> query(Table table, String what, String sql, Row<T> row, Object... args) {
        return withConnection(table, what, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                bind(ps, 1, args);
                try (ResultSet rs = ps.executeQuery()) {
                    List<T> out = new ArrayList<>();
                    while (rs.next()) {
                        out.add(row.map(rs));
                    }
                    return out;
                }
            }
        });
    }

    /**
     * Runs a query that returns at most one row.
     *
     * @return the row, or empty when there is none
     * @throws TableAccessException when it returned more than one row
     * @throws RuntimeException     {@code table}'s failure when PostgreSQL answers with an error
     */
    public <T> Optional<T> queryOne(Table table, String what, String sql, Row<T> row, Object... args) {
        List<T> rows = query(table, what, sql, row, args);
        if (rows.size() > 1) {
            throw new TableAccessException(table.name(), what, rows.size(), 1);
        }
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }

    /**
     * @return the first column of the one row of a query such as {@code SELECT count(*) …}
     * @throws TableAccessException when it returned no row or several
     * @throws RuntimeException     {@code table}'s failure when PostgreSQL answers with an error
     */
    public int queryInt(Table table, String what, String sql, Object... args) {
        List<Integer> rows = query(table, what, sql, rs -> rs.getInt(1), args);
        if (rows.size() != 1) {
            throw new TableAccessException(table.name(), what, rows.size(), 1);
        }
        return rows.get(0);
    }

    /**
     * Lends a connection for one unit of work (several statements on one session, COPY, batches) and takes it
     * back afterwards; inside a JTA transaction it is the transaction's. Statements on it are bound with
     * {@link #bind} or run with {@link #update(Connection, String, Object...)}.
     *
     * @return what the work returned
     * @throws RuntimeException {@code table}'s failure when the work throws an {@link SQLException}
     * @throws X                the work's own exception, unchanged (runtime exceptions too)
     */
    public <T, X extends Exception> T withConnection(Table table, String what, Work<T, X> work) throws X {
        try {
            return withConnection(work);
        } catch (SQLException e) {
            throw table.failed(what, e);
        }
    }

    /**
     * {@link #withConnection(Table, String, Work)} for callers that handle the {@link SQLException} themselves
     * (probes, the clock's measurement, a registration that is retried).
     *
     * @return what the work returned
     * @throws SQLException when no connection could be borrowed or the work failed
     * @throws X            the work's own exception, unchanged
     */
    public <T, X extends Exception> T withConnection(Work<T, X> work) throws SQLException, X {
        try (Connection c = dataSource.getConnection()) {
            return work.run(c);
        }
    }

    /**
     * An SQL array argument for {@link #bind}: {@code setArray} of {@code createArrayOf(type, elements)}.
     *
     * @param type     the element type, e.g. {@code uuid}, {@code text}
     * @param elements the elements
     */
    public record SqlArray(String type, Object[] elements) {
    }

    /** @return an SQL array argument of {@code elements}, each of the PostgreSQL type {@code type} */
    public static SqlArray array(String type, Object[] elements) {
        return new SqlArray(type, elements);
    }

    /**
     * A {@code bytea} argument streamed into the statement for {@link #bind}: {@code setBinaryStream}.
     *
     * @param in     the bytes
     * @param length exactly how many bytes {@code in} gives
     */
    public record SqlStream(InputStream in, int length) {
    }

    /** @return a {@code bytea} argument of the next {@code length} bytes of {@code in}, streamed, not copied */
    public static SqlStream stream(InputStream in, int length) {
        return new SqlStream(in, length);
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
     * unspecified type, an {@link Instant} as {@code timestamptz} at UTC, an {@link SqlArray} as an SQL
     * array, an {@link SqlStream} as a streamed {@code bytea}, anything else as is.
     */
    public static void bind(PreparedStatement ps, int first, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            int idx = first + i;
            if (a == null) {
                ps.setNull(idx, Types.OTHER);
            } else if (a instanceof Instant t) {
                ps.setObject(idx, OffsetDateTime.ofInstant(t, ZoneOffset.UTC));
            } else if (a instanceof SqlArray arr) {
                ps.setArray(idx, ps.getConnection().createArrayOf(arr.type(), arr.elements()));
            } else if (a instanceof SqlStream in) {
                ps.setBinaryStream(idx, in.in(), in.length());
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
