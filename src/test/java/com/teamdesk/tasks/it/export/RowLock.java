package com.teamdesk.tasks.it.export;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * A test-held row lock on one {@code background_task} row (or, with {@link #onRow}, a row of
 * another table): {@code SELECT ... FOR UPDATE} in an
 * open transaction of the test's own connection. The production code never waits on purpose, but
 * every ledger write is an UPDATE of that row, so an execution that reaches its claim (R7) or a
 * lease-checked write (R8) while the test holds the lock waits in PostgreSQL until the test lets
 * go. That turns "the job is in flight" into an observable, deterministic sync point, with no test
 * hook in the server: {@link #awaitBlocked} polls {@code pg_stat_activity} until a backend is
 * blocked by this transaction running the expected statement (a bounded poll that detects the
 * sync point; it never orders anything by sleeping).
 *
 * <p>Only the test's own task rows are ever locked, so nothing else on the shared test database
 * waits. {@link #close()} rolls back (releases) and closes, and is safe to call twice.
 */
public final class RowLock implements AutoCloseable {
    /** Start of the production claim statement (JdbcTaskLedger.claim). */
    public static final String CLAIM = "UPDATE background_task SET status = 'RUNNING'";
    /** Start of the production progress write (JdbcTaskLedger.writeProgress). */
    public static final String PROGRESS = "UPDATE background_task SET progress = ";

    private final Connection connection;
    private final Callable<Connection> connections;
    private final int pid;
    private final String what;
    private boolean released;

    private RowLock(Connection connection, Callable<Connection> connections, int pid, String what) {
        this.connection = connection;
        this.connections = connections;
        this.pid = pid;
        this.what = what;
    }

    /**
     * Locks the row at once (the row must exist and nobody else may hold it).
     *
     * @param connections opens a new connection to the test database (one is kept for the lock,
     *                    others are used for the polls)
     */
    public static RowLock on(Callable<Connection> connections, UUID taskId) throws Exception {
        return onRow(connections, "background_task", taskId, "FOR UPDATE");
    }

    /**
     * Locks row {@code id} of {@code table} at once with {@code lockClause} ({@code "FOR UPDATE"} or
     * {@code "FOR NO KEY UPDATE"}; the latter still blocks every UPDATE of the row but lets foreign
     * key checks of inserts that reference it pass).
     *
     * @param connections opens a new connection to the test database
     */
    public static RowLock onRow(Callable<Connection> connections, String table, UUID id, String lockClause)
            throws Exception {
        return onRows(connections, table, "id = ?", id, lockClause);
    }

    /**
     * Locks every row of {@code table} where {@code condition} (one placeholder, bound to {@code arg}) holds, at once,
     * with {@code lockClause}, e.g. a ticket's SLA clocks ({@code ticket_id = ?}); at least one row must match.
     */
    public static RowLock onRows(Callable<Connection> connections, String table, String condition, Object arg,
            String lockClause) throws Exception {
        Connection c = connections.call();
        try {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT pg_backend_pid() FROM " + table + " WHERE " + condition + " " + lockClause)) {
                ps.setObject(1, arg);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new IllegalStateException("no " + table + " row where " + condition + " to lock");
                    }
                    return new RowLock(c, connections, rs.getInt(1), table + " rows where " + condition);
                }
            }
        } catch (Exception e) {
            c.close();
            throw e;
        }
    }

    /**
     * Takes the lock on a separate thread and returns once PostgreSQL shows it queued behind the
     * current holder (blocked). Used for a hand-over: the claim waiting on this lock's holder gets
     * the row first, then this lock (PostgreSQL queues waiters of a row on its tuple lock).
     *
     * @return the queued lock; {@link #awaitHeld} tells when it is held
     */
    public static Queued queueBehind(Callable<Connection> connections, UUID taskId, Duration max) throws Exception {
        Connection c = connections.call();
        c.setAutoCommit(false);
        int pid;
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_backend_pid()"); ResultSet rs = ps.executeQuery()) {
            rs.next();
            pid = rs.getInt(1);
        }
        Queued q = new Queued(c, connections, pid, taskId);
        q.thread.start();
        Instant deadline = Instant.now().plus(max);
        while (Instant.now().isBefore(deadline)) {
            if (count(connections, "SELECT count(*) FROM pg_stat_activity WHERE pid = ? AND"
                    + " cardinality(pg_blocking_pids(pid)) > 0", pid) > 0) {
                return q;
            }
            if (q.failure != null) {
                throw new AssertionError("the queued lock failed", q.failure);
            }
            Thread.sleep(20);
        }
        q.close();
        throw new AssertionError("the second lock on task " + taskId + " never queued within " + max);
    }

    /** @return the backend pid holding the lock */
    public int pid() {
        return pid;
    }

    /**
     * Waits (bounded) until some backend is blocked by this lock while running a statement that
     * starts with {@code statementPrefix}.
     *
     * @return the blocked backend's pid
     * @throws AssertionError when it does not happen within {@code max}
     */
    public int awaitBlocked(String statementPrefix, Duration max) throws Exception {
        return awaitBlocked(connections, pid, statementPrefix, max, what);
    }

    /**
     * Terminates the backends waiting on this lock (see {@link Queued#terminateWaiters()}).
     *
     * @return how many were terminated
     */
    public int terminateWaiters() throws Exception {
        return terminateWaiters(connections, pid);
    }

    /** Releases the lock (rollback); the waiting statement proceeds. */
    public void release() throws SQLException {
        if (!released) {
            released = true;
            connection.rollback();
        }
    }

    @Override
    public void close() throws SQLException {
        try {
            release();
        } finally {
            connection.close();
        }
    }

    static int awaitBlocked(Callable<Connection> connections, int holderPid, String statementPrefix, Duration max,
            String what) throws Exception {
        Instant deadline = Instant.now().plus(max);
        while (Instant.now().isBefore(deadline)) {
            try (Connection c = connections.call(); PreparedStatement ps = c.prepareStatement(
                    "SELECT pid FROM pg_stat_activity WHERE ? = ANY (pg_blocking_pids(pid)) AND query LIKE ?")) {
                ps.setInt(1, holderPid);
                ps.setString(2, statementPrefix.replace("%", "\\%").replace("_", "\\_") + "%");
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return rs.getInt(1);
                    }
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no statement '" + statementPrefix + "...' waited on the lock of " + what
                + " (backend " + holderPid + ") within " + max);
    }

    private static int terminateWaiters(Callable<Connection> connections, int holderPid) throws Exception {
        try (Connection c = connections.call(); PreparedStatement ps = c.prepareStatement(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE ? = ANY (pg_blocking_pids(pid))")) {
            ps.setInt(1, holderPid);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static long count(Callable<Connection> connections, String sql, int pid) throws Exception {
        try (Connection c = connections.call(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, pid);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** A lock requested on a background thread, queued behind the current holder. */
    public static final class Queued implements AutoCloseable {
        private final Connection connection;
        private final Callable<Connection> connections;
        private final int pid;
        private final UUID taskId;
        private final Thread thread;
        private volatile Throwable failure;
        private volatile boolean held;
        private boolean closed;

        private Queued(Connection connection, Callable<Connection> connections, int pid, UUID taskId) {
            this.connection = connection;
            this.connections = connections;
            this.pid = pid;
            this.taskId = taskId;
            this.thread = new Thread(() -> {
                try (PreparedStatement ps = connection.prepareStatement(
                        "SELECT 1 FROM background_task WHERE id = ? FOR UPDATE")) {
                    ps.setObject(1, taskId);
                    ps.executeQuery().close();
                    held = true;
                } catch (Throwable t) {
                    failure = t;
                }
            }, "row-lock-" + taskId);
            thread.setDaemon(true);
        }

        /** Waits (bounded) until the lock is held. */
        public void awaitHeld(Duration max) throws Exception {
            thread.join(max.toMillis());
            if (failure != null) {
                throw new AssertionError("the queued lock failed", failure);
            }
            if (!held) {
                throw new AssertionError("the queued lock on task " + taskId + " was not granted within " + max);
            }
        }

        /** @return the backend pid of this lock's connection */
        public int pid() {
            return pid;
        }

        /** @see RowLock#awaitBlocked(String, Duration) */
        public int awaitBlocked(String statementPrefix, Duration max) throws Exception {
            return RowLock.awaitBlocked(connections, pid, statementPrefix, max, "task " + taskId);
        }

        /**
         * Terminates the backends waiting on this lock (pg_terminate_backend; the test database user
         * owns them), e.g. statements of a server process that has exited, so that they can never
         * run once the lock is released.
         *
         * @return how many were terminated
         */
        public int terminateWaiters() throws Exception {
            return RowLock.terminateWaiters(connections, pid);
        }

        /** Rolls back (releases) and closes; the lock request is cancelled if still waiting. */
        @Override
        public void close() throws SQLException {
            if (closed) {
                return;
            }
            closed = true;
            try {
                if (!held) {
                    try (Connection c = connections.call(); PreparedStatement ps = c.prepareStatement(
                            "SELECT pg_cancel_backend(?)")) {
                        ps.setInt(1, pid);
                        ps.executeQuery().close();
                    } catch (Exception e) {
                        // best effort: closing the connection ends the request too
                    }
                    try {
                        thread.join(10_000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                connection.rollback();
            } finally {
                connection.close();
            }
        }
    }
}
