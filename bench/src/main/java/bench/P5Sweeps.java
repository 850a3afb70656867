package bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * P5: the dispatch sweep (R18) and the recovery sweeps (R19, R20) on a 1 000 000-row ledger
 * (bench/sql/p5-ledger.sql), with the SQL text exactly as JdbcTaskLedger issues it, bound the same way
 * (timestamptz as OffsetDateTime UTC, one reused connection so pgjdbc switches to server-side prepared
 * statements after 5 uses, as in the server's pool).
 *
 * <p>Timed, each from the first statement to COMMIT:
 * <ul>
 * <li>dispatch sweep = TaskDispatcher.dispatchDue(200) without the Redis bulk add: lockDueForDispatch, then
 *     one markDispatched(List) UPDATE for the batch, COMMIT; and, for comparison, "dispatch-per-row" as it was
 *     before be43475 (one markDispatched UPDATE per row);</li>
 * <li>recovery sweep = TaskRecovery.recoverStalled(200): the one recoverStalled statement, COMMIT;</li>
 * <li>reconcile lock = TaskRecovery.reconcile(200) without the Redis look-ups: lockDispatchedWaiting, COMMIT.</li>
 * </ul>
 * Each scenario sets up exactly {@code k} due (or stalled) rows, untimed, and restores them after every
 * run, so that every run does the same work. Prints one JSON line with medians and EXPLAIN (ANALYZE, BUFFERS)
 * plans (custom plan with the bound values, and the generic plan a prepared statement may switch to).
 *
 * <p>Usage: {@code P5Sweeps <jdbc-url> <user> <runs>}.
 */
public final class P5Sweeps {

    // ---- copied from JdbcTaskLedger (bench/run checks that the source still contains them) ----
    static final String LOCK_DUE = "SELECT id, run FROM background_task WHERE status = 'WAITING' AND dispatched_at IS NULL"
            + " AND run_at <= ?" + "" + " ORDER BY run_at LIMIT ? FOR UPDATE SKIP LOCKED";
    static final String MARK_DISPATCHED = "UPDATE background_task SET dispatched_at = ?, updated_at = ? WHERE id = ? AND run = ?"
            + " AND status = 'WAITING'";
    static final String RECOVER_STALLED = "UPDATE background_task SET status = 'WAITING', execution_id = NULL, dispatched_at = NULL,"
            + " updated_at = ? WHERE id IN (SELECT id FROM background_task WHERE status = 'RUNNING'"
            + " AND updated_at < ? ORDER BY updated_at LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING id, run";
    static final String LOCK_DISPATCHED_WAITING = "SELECT id, run FROM background_task WHERE status = 'WAITING' AND dispatched_at IS NOT NULL"
            + " AND updated_at < ? ORDER BY updated_at LIMIT ? FOR UPDATE SKIP LOCKED";
    static final String RETENTION_DELETE = "DELETE FROM background_task WHERE id IN (SELECT id FROM background_task"
            + " WHERE status IN ('COMPLETED', 'FAILED', 'CANCELLED') AND updated_at < ?"
            + " AND NOT (status = 'CANCELLED' AND dispatched_at IS NOT NULL)"
            + " ORDER BY updated_at LIMIT " + 500 + " FOR UPDATE SKIP LOCKED)";
    // -------------------------------------------------------------------------------------------

    /**
     * teamdesk.retention.batch-size default (500, a literal in the SQL above, as LedgerRetention writes it). The age is 95 days here, not the default 90: the
     * generated ledger spreads created_at over the 90 days before its ~10-minute load, so with 90 the
     * oldest rows would already be due; the statement and its plan do not depend on the value.
     */
    static final long RETENTION_DAYS = 95;

    /** Since be43475 the sweep marks the whole batch with this one statement (JdbcTaskLedger.markDispatched(List)). */
    static final String MARK_DISPATCHED_BATCH = "UPDATE background_task t SET dispatched_at = ?, updated_at = ?"
            + " FROM unnest(?::uuid[], ?::int[]) AS j(id, run)"
            + " WHERE t.id = j.id AND t.run = j.run AND t.status = 'WAITING'";

    static final int BATCH = 200;            // teamdesk.dispatch.batch-size
    static final long STALL_MS = 120_000;    // teamdesk.recovery.stall-threshold-ms
    static final int WARMUP = 6;

    private final Connection c;
    private final int runs;
    private final List<UUID> dueRows = new ArrayList<>();
    private final List<UUID> runningRows = new ArrayList<>();
    private final List<UUID> oldRows = new ArrayList<>();

    private P5Sweeps(Connection c, int runs) {
        this.c = c;
        this.runs = runs;
    }

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0], args[1], "")) {
            new P5Sweeps(c, Integer.parseInt(args[2])).run();
        }
    }

    private void run() throws SQLException {
        c.setAutoCommit(true);
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*), pg_size_pretty(pg_total_relation_size('background_task'))"
                     + ", (SELECT string_agg(status || '=' || n, ' ' ORDER BY status) FROM (SELECT status, count(*) n"
                     + " FROM background_task GROUP BY status) s) FROM background_task")) {
            rs.next();
            System.err.printf("P5: %d ledger rows, %s, %s%n", rs.getLong(1), rs.getString(2), rs.getString(3));
            out.append("{\"ledgerRows\":").append(rs.getLong(1)).append(",\"ledgerSize\":\"").append(rs.getString(2))
                    .append("\",\"statusMix\":\"").append(rs.getString(3)).append('"');
        }
        dueRows.addAll(ids("SELECT id FROM background_task WHERE filters->>'bench' = 'due' ORDER BY id"));
        runningRows.addAll(ids("SELECT id FROM background_task WHERE status = 'RUNNING' ORDER BY id"));
        if (dueRows.size() < BATCH || runningRows.size() < 2 * BATCH) {
            throw new IllegalStateException("P5 data is missing its due/running rows: " + dueRows.size() + "/"
                    + runningRows.size());
        }
        out.append(",\"runs\":").append(runs).append(",\"scenarios\":[");
        boolean first = true;
        for (int k : new int[] {0, 20, BATCH}) {
            out.append(first ? "" : ",");
            first = false;
            dispatchScenario(k);
            out.append(',');
            recoveryScenario(k);
        }
        out.append(',');
        reconcileScenario();
        for (int k : new int[] {0, 20}) {
            out.append(',');
            retentionScenario(k);
        }
        out.append("]}");
        // leave the data as generated: all due rows undispatched, stale rows stale
        setDue(BATCH);
        setStalled(BATCH);
        System.out.println(out);
    }

    private final StringBuilder out = new StringBuilder();

    // ---- dispatch (R18) ----

    private void dispatchScenario(int k) throws SQLException {
        setDue(k);
        refreshQueued();
        double[] ms = new double[runs];
        for (int i = -WARMUP; i < runs; i++) {
            long t0 = System.nanoTime();
            int n = dispatchSweep();
            double t = (System.nanoTime() - t0) / 1e6;
            if (n != k) {
                throw new IllegalStateException("dispatch sweep locked " + n + " rows, expected " + k);
            }
            if (i >= 0) {
                ms[i] = t;
            }
            restoreDue(k);
        }
        Instant now = Instant.now();
        report("dispatch-per-row", k, ms,
                List.of(),
                List.of());
        {
            for (int i = -WARMUP; i < runs; i++) {
                long t0 = System.nanoTime();
                int n = dispatchSweepBatched();
                double t = (System.nanoTime() - t0) / 1e6;
                if (n != k) {
                    throw new IllegalStateException("dispatch sweep marked " + n + " rows, expected " + k);
                }
                if (i >= 0) {
                    ms[i] = t;
                }
                restoreDue(k);
            }
        }
        out.append(',');
        now = Instant.now();
        report("dispatch", k, ms,
                plans(LOCK_DUE, now, BATCH),
                k > 0 ? plans(MARK_DISPATCHED_BATCH, now, now,
                        c.createArrayOf("uuid", dueRows.subList(0, k).toArray()),
                        c.createArrayOf("int4", java.util.Collections.nCopies(k, 0).toArray())) : List.of());
    }

    /** TaskDispatcher.dispatchDue(200) as it is now, minus the Redis bulk add: lock, ONE statement marks the batch. */
    private int dispatchSweepBatched() throws SQLException {
        c.setAutoCommit(false);
        try {
            Instant now = Instant.now();
            List<UUID> ids = new ArrayList<>();
            List<Integer> runs = new ArrayList<>();
            try (PreparedStatement ps = prepare(LOCK_DUE, now, BATCH); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getObject(1, UUID.class));
                    runs.add(rs.getInt(2));
                }
            }
            int n = 0;
            if (!ids.isEmpty()) {
                try (PreparedStatement ps = prepare(MARK_DISPATCHED_BATCH, now, now,
                        c.createArrayOf("uuid", ids.toArray()), c.createArrayOf("int4", runs.toArray()))) {
                    n = ps.executeUpdate();
                }
            }
            c.commit();
            return n;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** TaskDispatcher.dispatchDue(200) before be43475, minus the Redis adds: one markDispatched per row. */
    private int dispatchSweep() throws SQLException {
        c.setAutoCommit(false);
        try {
            Instant now = Instant.now();
            List<Object[]> jobs = new ArrayList<>();
            try (PreparedStatement ps = prepare(LOCK_DUE, now, BATCH); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    jobs.add(new Object[] {rs.getObject(1, UUID.class), rs.getInt(2)});
                }
            }
            for (Object[] job : jobs) {
                try (PreparedStatement ps = prepare(MARK_DISPATCHED, now, now, job[0], job[1])) {
                    if (ps.executeUpdate() != 1) {
                        throw new IllegalStateException("markDispatched did not match its row");
                    }
                }
            }
            c.commit();
            return jobs.size();
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** Exactly the first k of the due rows are due and undispatched; the others look dispatched. */
    private void setDue(int k) throws SQLException {
        exec("UPDATE background_task SET dispatched_at = NULL WHERE id = ANY(?)", ids(dueRows.subList(0, k)));
        exec("UPDATE background_task SET dispatched_at = now() WHERE id = ANY(?)", ids(dueRows.subList(k, dueRows.size())));
    }

    private void restoreDue(int k) throws SQLException {
        exec("UPDATE background_task SET dispatched_at = NULL WHERE id = ANY(?)", ids(dueRows.subList(0, k)));
    }

    /** WAITING rows in the queue were written recently (else the reconcile sweep would look at them). */
    private void refreshQueued() throws SQLException {
        exec("UPDATE background_task SET updated_at = now() WHERE status = 'WAITING' AND dispatched_at IS NOT NULL"
                + " AND NOT (id = ANY(?))", ids(dueRows));
    }

    // ---- stall recovery (R19) ----

    private void recoveryScenario(int k) throws SQLException {
        setStalled(k);
        double[] ms = new double[runs];
        for (int i = -WARMUP; i < runs; i++) {
            long t0 = System.nanoTime();
            int n = recoverySweep();
            double t = (System.nanoTime() - t0) / 1e6;
            if (n != k) {
                throw new IllegalStateException("recovery sweep recovered " + n + " rows, expected " + k);
            }
            if (i >= 0) {
                ms[i] = t;
            }
            setStalled(k);
        }
        Instant now = Instant.now();
        report("recovery", k, ms, plans(RECOVER_STALLED, now, now.minusMillis(STALL_MS), BATCH), List.of());
    }

    private int recoverySweep() throws SQLException {
        c.setAutoCommit(false);
        try {
            Instant now = Instant.now();
            int n = 0;
            try (PreparedStatement ps = prepare(RECOVER_STALLED, now, now.minusMillis(STALL_MS), BATCH);
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    n++;
                }
            }
            c.commit();
            return n;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** Exactly the first k RUNNING rows are stalled (no write for 5 min); the others were just written. */
    private void setStalled(int k) throws SQLException {
        exec("UPDATE background_task SET status = 'RUNNING', execution_id = gen_random_uuid(), dispatched_at ="
                + " now() - interval '6 min', updated_at = now() - interval '5 min' WHERE id = ANY(?)",
                ids(runningRows.subList(0, k)));
        exec("UPDATE background_task SET status = 'RUNNING', execution_id = gen_random_uuid(), dispatched_at ="
                + " now() - interval '1 min', updated_at = now() WHERE id = ANY(?)",
                ids(runningRows.subList(k, runningRows.size())));
    }

    // ---- reconciliation lock (R20) ----

    private void reconcileScenario() throws SQLException {
        setDue(0);
        refreshQueued();
        double[] ms = new double[runs];
        for (int i = -WARMUP; i < runs; i++) {
            long t0 = System.nanoTime();
            c.setAutoCommit(false);
            int n = 0;
            try (PreparedStatement ps = prepare(LOCK_DISPATCHED_WAITING, Instant.now().minusMillis(STALL_MS), BATCH);
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    n++;
                }
            }
            c.commit();
            c.setAutoCommit(true);
            double t = (System.nanoTime() - t0) / 1e6;
            if (n != 0) {
                throw new IllegalStateException("reconcile locked " + n + " rows, expected 0");
            }
            if (i >= 0) {
                ms[i] = t;
            }
        }
        report("reconcile", 0, ms, plans(LOCK_DISPATCHED_WAITING, Instant.now().minusMillis(STALL_MS), BATCH), List.of());
    }

    // ---- ledger retention (issue 17, R29) ----

    /**
     * Exactly {@code k} COMPLETED rows are older than the 90-day cutoff; one retention batch deletes them
     * (timed), then the transaction is rolled back so every run sees the same ledger.
     */
    private void retentionScenario(int k) throws SQLException {
        if (oldRows.isEmpty()) {
            oldRows.addAll(ids("SELECT id FROM background_task WHERE status = 'COMPLETED' AND result_sha256 IS NULL"
                    + " ORDER BY id LIMIT 20"));
        }
        exec("UPDATE background_task SET updated_at = now() - interval '100 days' WHERE id = ANY(?)",
                ids(oldRows.subList(0, k)));
        double[] ms = new double[runs];
        for (int i = -WARMUP; i < runs; i++) {
            c.setAutoCommit(false);
            int n;
            long t0 = System.nanoTime();
            try (PreparedStatement ps = prepare(RETENTION_DELETE, Instant.now().minus(java.time.Duration.ofDays(RETENTION_DAYS)))) {
                n = ps.executeUpdate();
            }
            double t = (System.nanoTime() - t0) / 1e6;
            c.rollback();
            c.setAutoCommit(true);
            if (n != k) {
                throw new IllegalStateException("retention deleted " + n + " rows, expected " + k);
            }
            if (i >= 0) {
                ms[i] = t;
            }
        }
        report("retention", k, ms, plans(RETENTION_DELETE, Instant.now().minus(java.time.Duration.ofDays(RETENTION_DAYS))),
                List.of());
        exec("UPDATE background_task SET updated_at = created_at + interval '5 s' WHERE id = ANY(?)",
                ids(oldRows.subList(0, k)));
    }

    // ---- plumbing ----

    private void report(String sweep, int rows, double[] ms, List<String> plan, List<String> perRowPlan) {
        double[] s = ms.clone();
        Arrays.sort(s);
        double median = s[s.length / 2];
        double p90 = s[(int) Math.min(s.length - 1, Math.ceil(s.length * 0.9) - 1)];
        boolean seq = plan.stream().anyMatch(l -> l.contains("Seq Scan"))
                || perRowPlan.stream().anyMatch(l -> l.contains("Seq Scan"));
        System.err.printf(Locale.ROOT, "P5 %-9s rows=%3d median %.2f ms  p90 %.2f ms  max %.2f ms  seqScan=%s%n",
                sweep, rows, median, p90, s[s.length - 1], seq);
        out.append(String.format(Locale.ROOT,
                "{\"sweep\":\"%s\",\"rows\":%d,\"medianMs\":%.3f,\"p90Ms\":%.3f,\"minMs\":%.3f,\"maxMs\":%.3f,"
                        + "\"seqScan\":%s,\"plan\":%s,\"perRowPlan\":%s}",
                sweep, rows, median, p90, s[0], s[s.length - 1], seq, json(plan), json(perRowPlan)));
    }

    /**
     * EXPLAIN (ANALYZE, BUFFERS) of the statement PREPAREd with the same parameters: once as a custom plan
     * (the values known to the planner, what pgjdbc's first executions get) and once as the generic plan (what
     * a server-side prepared statement may switch to after 5 executions). Rolled back.
     */
    private List<String> plans(String sql, Object... args) throws SQLException {
        List<String> lines = new ArrayList<>();
        StringBuilder values = new StringBuilder();
        for (Object a : args) {
            values.append(values.length() == 0 ? "" : ", ");
            if (a instanceof Instant t) {
                values.append('\'').append(OffsetDateTime.ofInstant(t, ZoneOffset.UTC)).append('\'');
            } else if (a instanceof UUID u) {
                values.append('\'').append(u).append('\'');
            } else if (a instanceof java.sql.Array arr) {
                values.append('\'').append(arr.toString()).append('\'');
            } else {
                values.append(a);
            }
        }
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            st.execute("PREPARE bench_p5 AS " + numbered(sql));
            for (String mode : new String[] {"force_custom_plan", "force_generic_plan"}) {
                lines.add(mode.equals("force_custom_plan")
                        ? "-- custom plan (the bound values known to the planner):"
                        : "-- generic plan (what a server-side prepared statement may switch to):");
                st.execute("SET LOCAL plan_cache_mode = " + mode);
                st.execute("SAVEPOINT before_explain"); // EXPLAIN ANALYZE of an UPDATE really updates
                try (ResultSet rs = st.executeQuery("EXPLAIN (ANALYZE, BUFFERS) EXECUTE bench_p5(" + values + ")")) {
                    while (rs.next()) {
                        lines.add(rs.getString(1));
                    }
                }
                st.execute("ROLLBACK TO SAVEPOINT before_explain");
            }
        } finally {
            c.rollback();
            try (Statement st = c.createStatement()) {
                st.execute("DEALLOCATE ALL");
            }
            c.setAutoCommit(true);
        }
        return lines;
    }

    /** JDBC '?' placeholders to $1, $2, ... for PREPARE. */
    private static String numbered(String sql) {
        StringBuilder sb = new StringBuilder();
        int n = 0;
        for (char ch : sql.toCharArray()) {
            if (ch == '?') {
                sb.append('$').append(++n);
            } else {
                sb.append(ch);
            }
        }
        return sb.toString();
    }

    private PreparedStatement prepare(String sql, Object... args) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            if (a instanceof Instant t) {
                ps.setObject(i + 1, OffsetDateTime.ofInstant(t, ZoneOffset.UTC));
            } else {
                ps.setObject(i + 1, a);
            }
        }
        return ps;
    }

    private void exec(String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = prepare(sql, args)) {
            ps.executeUpdate();
        }
    }

    private java.sql.Array ids(List<UUID> ids) throws SQLException {
        return c.createArrayOf("uuid", ids.toArray());
    }

    private List<UUID> ids(String sql) throws SQLException {
        List<UUID> ids = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                ids.add(rs.getObject(1, UUID.class));
            }
        }
        return ids;
    }

    private static String json(List<String> lines) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < lines.size(); i++) {
            sb.append(i == 0 ? "" : ",").append('"')
                    .append(lines.get(i).replace("\\", "\\\\").replace("\"", "\\\"").replace("\t", "    "))
                    .append('"');
        }
        return sb.append(']').toString();
    }
}
