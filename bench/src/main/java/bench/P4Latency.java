package bench;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * P4: latency from the creation of a task to its claim (R7, RUNNING), at a steady rate, through the API of a
 * running server. The tasks are SELF exports by a user with no tickets (0-row CSVs), so the execution itself
 * is trivial. Also used for P2 (ours): the same tasks, created as fast as {@code clients} closed loops allow.
 *
 * <p>Method (P4): one POST every 1/rate s on a fixed schedule (asynchronous, so a slow answer does not delay
 * the next request). The claim instant is the {@code updated_at} the server's claim UPDATE writes, recorded by
 * a trigger of the benchmark database into {@code bench_claim} (bench/sql/server-data.sql); the creation
 * instant is the row's {@code created_at}, written by the same server clock just before the INSERT commits
 * and the 202 is sent. So latency = claimed_at - created_at (server clock, µs resolution): it includes the
 * commit, the dispatch on commit (Redis add), the worker's wake-up and fetch, and the claim UPDATE. Also
 * reported: claim - instant the client received the 202 (same machine clock, can be negative when the claim
 * happened before the client read the answer).
 *
 * <p>Usage: {@code P4Latency latency <base url> <key> <jdbc url> <db user> <tasks> <rate per s>} or
 * {@code P4Latency throughput <base url> <key> <jdbc url> <db user> <tasks> <clients> [jdk]}, or
 * {@code P4Latency engine|engineReminder <base url> <key> <jdbc url> <db user> <tasks> 0}. Prints one JSON line.
 */
public final class P4Latency {

    static final String BODY = "{\"kind\":\"EXPORT\",\"scope\":\"SELF\"}";
    static final long TIMEOUT_MS = 300_000;

    public static void main(String[] args) throws Exception {
        Api api = new Api(args[1]);
        String token = Api.token(Path.of(args[2]), Api.IDLE, "bench-idle");
        try (Connection db = DriverManager.getConnection(args[3], args[4], "")) {
            int tasks = Integer.parseInt(args[5]);
            if (args[0].equals("latency")) {
                latency(api, token, db, tasks, Double.parseDouble(args[6]));
            } else if (args[0].equals("engine")) {
                engine(api, token, db, tasks);
            } else if (args[0].equals("engineReminder")) {
                engineReminder(api, Api.token(Path.of(args[2]), Api.OWNER, "bench-owner"), db, tasks);
            } else {
                throughput(api, token, db, tasks, Integer.parseInt(args[6]), args.length > 7 && args[7].equals("jdk"));
            }
        }
    }

    static void latency(Api api, String token, Connection db, int tasks, double rate) throws Exception {
        // warm-up: 50 tasks (JIT, pools), not counted
        for (int i = 0; i < 50; i++) {
            Api.idOf(api.create(token, Api.TEAM_IDLE, BODY));
        }
        long start = System.nanoTime() + 50_000_000;
        List<CompletableFuture<long[]>> sent = paced(tasks, start, (long) (1e9 / rate),
                i -> api.createAsync(token, Api.TEAM_IDLE, BODY).thenApply(r -> {
                    long at = epochMicros();
                    UUID id = Api.idOf(r);
                    return new long[] {id.getMostSignificantBits(), id.getLeastSignificantBits(), at};
                }));
        Map<UUID, Long> received = new HashMap<>();
        List<UUID> ids = new ArrayList<>();
        double sendSeconds = (System.nanoTime() - start) / 1e9;
        for (CompletableFuture<long[]> f : sent) {
            long[] r = f.get(60, TimeUnit.SECONDS);
            UUID id = new UUID(r[0], r[1]);
            ids.add(id);
            received.put(id, r[2]);
        }
        awaitCompleted(db, ids);
        double[] fromCreated = new double[ids.size()];
        double[] from202 = new double[ids.size()];
        int i = 0;
        try (PreparedStatement ps = db.prepareStatement("SELECT t.id, t.created_at, c.claimed_at FROM background_task t"
                + " JOIN bench_claim c ON c.task_id = t.id AND c.run = t.run WHERE t.id = ANY(?)")) {
            ps.setArray(1, db.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    UUID id = rs.getObject(1, UUID.class);
                    long created = micros(rs.getTimestamp(2));
                    long claimed = micros(rs.getTimestamp(3));
                    fromCreated[i] = (claimed - created) / 1000.0;
                    from202[i] = (claimed - received.get(id)) / 1000.0;
                    i++;
                }
            }
        }
        if (i != ids.size()) {
            throw new IllegalStateException("claims recorded for " + i + " of " + ids.size() + " tasks");
        }
        Arrays.sort(fromCreated);
        Arrays.sort(from202);
        System.err.printf(Locale.ROOT, "P4 %d tasks at %.0f/s: created->claim p50 %.1f ms p99 %.1f ms max %.1f ms%n",
                tasks, rate, pct(fromCreated, 50), pct(fromCreated, 99), fromCreated[fromCreated.length - 1]);
        System.out.println(String.format(Locale.ROOT, "{\"tasks\":%d,\"ratePerS\":%.1f,\"sendSeconds\":%.2f,"
                + "\"p50Ms\":%.2f,\"p90Ms\":%.2f,\"p99Ms\":%.2f,\"maxMs\":%.2f,\"minMs\":%.2f,"
                + "\"from202P50Ms\":%.2f,\"from202P99Ms\":%.2f,\"from202MinMs\":%.2f,"
                + "\"claimedBefore202\":%d}",
                tasks, rate, sendSeconds, pct(fromCreated, 50), pct(fromCreated, 90), pct(fromCreated, 99),
                fromCreated[fromCreated.length - 1], fromCreated[0], pct(from202, 50), pct(from202, 99), from202[0],
                Arrays.stream(from202).filter(v -> v < 0).count()));
    }

    /**
     * P2 ours: {@code clients} closed loops create {@code tasks} tasks; time until all are COMPLETED. Each loop
     * has its own blocking keep-alive connection ({@link PlainHttp}), or, with {@code jdkClient}, shares the
     * JDK's {@code HttpClient} as before 2026-12-01 22:50 (for comparing the two).
     */
    static void throughput(Api api, String token, Connection db, int tasks, int clients, boolean jdkClient)
            throws Exception {
        try (PlainHttp warm = api.plainClient()) {
            for (int i = 0; i < 50; i++) { // warm-up
                if (jdkClient) {
                    Api.idOf(api.create(token, Api.TEAM_IDLE, BODY));
                } else {
                    api.create(warm, token, Api.TEAM_IDLE, BODY);
                }
            }
        }
        List<UUID> ids = java.util.Collections.synchronizedList(new ArrayList<>());
        long t0 = System.nanoTime();
        join(closedLoops(api, clients, tasks, (http, i) -> ids.add(jdkClient
                ? Api.idOf(api.create(token, Api.TEAM_IDLE, BODY)) : api.create(http, token, Api.TEAM_IDLE, BODY))));
        double createdS = (System.nanoTime() - t0) / 1e9;
        if (ids.size() != tasks) {
            throw new IllegalStateException("created " + ids.size() + " of " + tasks);
        }
        awaitCompleted(db, ids);
        double allS = (System.nanoTime() - t0) / 1e9;
        System.err.printf(Locale.ROOT, "P2 ours: %d tasks created in %.2f s, all COMPLETED after %.2f s: %.0f tasks/s%n",
                tasks, createdS, allS, tasks / allS);
        System.out.println(String.format(Locale.ROOT, "{\"tasks\":%d,\"clients\":%d,\"httpClient\":\"%s\","
                + "\"createSeconds\":%.3f,\"createPerSecond\":%.1f,\"allCompletedSeconds\":%.3f,\"tasksPerSecond\":%.1f}",
                tasks, clients, jdkClient ? "jdk" : "plain", createdS, tasks / createdS, allS, tasks / allS));
    }

    /**
     * P2 ours without HTTP: {@code tasks} WAITING rows inserted in one SQL statement (as JdbcTaskLedger.insert
     * writes them, filters copied from a task the API created), handed to the queue by the server's dispatch
     * sweep (EJB timer every 5 s, batches of 200), claimed and completed by the workers. Reports the rate from
     * the first claim to the last completion (the engine), and from the insert to the last completion.
     */
    static void engine(Api api, String token, Connection db, int tasks) throws Exception {
        List<UUID> warm = new ArrayList<>();
        for (int i = 0; i < 20; i++) { // warm-up, and a task whose validated filters the rows copy
            warm.add(Api.idOf(api.create(token, Api.TEAM_IDLE, BODY)));
        }
        awaitCompleted(db, warm);
        List<UUID> ids = new ArrayList<>();
        long t0 = System.nanoTime();
        db.setAutoCommit(true);
        try (PreparedStatement ps = db.prepareStatement("INSERT INTO background_task (id, kind, team_id, owner_id, scope,"
                + " filters, status, run, attempts, progress, run_at, created_at, updated_at)"
                + " SELECT gen_random_uuid(), 'EXPORT', ?, ?, 'SELF', (SELECT filters FROM background_task WHERE owner_id = ?"
                + " LIMIT 1), 'WAITING', 0, 0, 0, now(), now(), now() FROM generate_series(1, ?) RETURNING id")) {
            ps.setObject(1, Api.TEAM_IDLE);
            ps.setObject(2, Api.IDLE);
            ps.setObject(3, Api.IDLE);
            ps.setInt(4, tasks);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getObject(1, UUID.class));
                }
            }
        }
        awaitCompleted(db, ids);
        double allS = (System.nanoTime() - t0) / 1e9;
        double execS = claimToLastCompletionSeconds(db, ids);
        System.err.printf(Locale.ROOT, "P2 ours (engine, no HTTP): %d tasks: first claim -> last completion %.2f s = %.0f"
                + " tasks/s; insert -> last completion %.2f s%n", tasks, execS, tasks / execS, allS);
        System.out.println(String.format(Locale.ROOT, "{\"tasks\":%d,\"claimToLastCompletionSeconds\":%.3f,"
                + "\"engineTasksPerSecond\":%.1f,\"insertToLastCompletionSeconds\":%.3f}", tasks, execS, tasks / execS, allS));
    }

    /** P2r: the reminder of the API warm-up and of the rows the engine round inserts (recipients ASSIGNEE: staff-1). */
    static final String REMINDER_MESSAGE = "P2r bench reminder: please follow up.";

    /**
     * P2r (issue 33), ours without HTTP, with real work: {@link #engine} with REMINDER tasks. The tickets are the
     * OPEN tickets of the teams bench-rem-1..8 (bench/sql/server-data.sql: 4 each, assigned to staff-1; the
     * bench owner is OWNER of every team, so the reminders are TEAM scope). Warm-up: one reminder per ticket
     * (at least 20) created through the API and awaited; then {@code tasks} WAITING REMINDER rows are inserted in
     * one SQL statement as {@code JdbcTaskLedger.insert} writes them, each with the team, owner, scope and stored
     * filters of one of those API-created reminders (cycling over the tickets, so consecutive rows go to
     * different teams), dispatched by the server's sweep. Each execution (ReminderTransaction, one transaction)
     * locks the team, reads the lease, the owner's role and the ticket (FOR UPDATE), inserts one notification,
     * bumps the ticket's version, appends a system event and completes the task under its lease. Rate: first
     * claim to last completion ({@code engineTasksPerSecond}), as {@link #engine}. Fails unless every task
     * COMPLETED and the work happened: exactly {@code tasks} notifications and {@code ticket.reminder_sent}
     * events name these tasks, and the tickets' versions went up by {@code tasks} in all.
     */
    static void engineReminder(Api api, String token, Connection db, int tasks) throws Exception {
        List<UUID[]> tickets = remTickets(db, "k.id"); // {ticket, team}
        List<UUID> warm = new ArrayList<>();
        for (int i = 0; i < Math.max(20, tickets.size()); i++) { // warm-up, and the reminders whose filters the rows copy
            UUID[] t = tickets.get(i % tickets.size());
            warm.add(Api.idOf(api.create(token, t[1], "{\"kind\":\"REMINDER\",\"ticketId\":\"" + t[0]
                    + "\",\"message\":\"" + REMINDER_MESSAGE + "\",\"recipients\":\"ASSIGNEE\"}")));
        }
        awaitCompleted(db, warm);
        List<UUID> templates = warm.subList(0, tickets.size()); // one per ticket, in ticket id order
        UUID[] ticketIds = tickets.stream().map(t -> t[0]).toArray(UUID[]::new);
        long versionsBefore = ticketVersions(db, ticketIds);
        List<UUID> ids = new ArrayList<>();
        long t0 = System.nanoTime();
        db.setAutoCommit(true);
        // src.k orders the templates by (ticket number k, team t): ticket ids are 7c..-0000000kkktt
        try (PreparedStatement ps = db.prepareStatement("WITH src AS (SELECT row_number() OVER (ORDER BY filters->>'ticketId')"
                + " - 1 AS k, team_id, owner_id, scope, filters FROM background_task WHERE id = ANY(?))"
                + " INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,"
                + " progress, run_at, created_at, updated_at)"
                + " SELECT gen_random_uuid(), 'REMINDER', s.team_id, s.owner_id, s.scope, s.filters, 'WAITING', 0, 0, 0,"
                + " now(), now(), now() FROM generate_series(0, ? - 1) n JOIN src s ON s.k = n % ? RETURNING id")) {
            ps.setArray(1, db.createArrayOf("uuid", templates.toArray()));
            ps.setInt(2, tasks);
            ps.setInt(3, templates.size());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getObject(1, UUID.class));
                }
            }
        }
        if (ids.size() != tasks) {
            throw new IllegalStateException("inserted " + ids.size() + " of " + tasks + " reminder rows");
        }
        awaitCompleted(db, ids);
        double allS = (System.nanoTime() - t0) / 1e9;
        double execS = claimToLastCompletionSeconds(db, ids);
        long notifications;
        long events;
        try (PreparedStatement ps = db.prepareStatement("SELECT (SELECT count(*) FROM notification WHERE task_id = ANY(?)),"
                + " (SELECT count(*) FROM system_event WHERE task_id = ANY(?) AND kind = 'ticket.reminder_sent')")) {
            java.sql.Array a = db.createArrayOf("uuid", ids.toArray());
            ps.setArray(1, a);
            ps.setArray(2, a);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                notifications = rs.getLong(1);
                events = rs.getLong(2);
            }
        }
        long bumps = ticketVersions(db, ticketIds) - versionsBefore;
        if (notifications != tasks || events != tasks || bumps != tasks) {
            throw new IllegalStateException("P2r ours: " + tasks + " reminders COMPLETED but " + notifications
                    + " notifications, " + events + " reminder events and " + bumps + " ticket version bumps");
        }
        System.err.printf(Locale.ROOT, "P2r ours (engine, reminders, no HTTP): %d tasks over %d tickets: first claim -> last"
                + " completion %.2f s = %.0f tasks/s; insert -> last completion %.2f s; %d notifications, %d events,"
                + " %d version bumps%n", tasks, tickets.size(), execS, tasks / execS, allS, notifications, events, bumps);
        System.out.println(String.format(Locale.ROOT, "{\"tasks\":%d,\"tickets\":%d,\"claimToLastCompletionSeconds\":%.3f,"
                + "\"engineTasksPerSecond\":%.1f,\"insertToLastCompletionSeconds\":%.3f,\"notifications\":%d,"
                + "\"events\":%d,\"versionBumps\":%d}", tasks, tickets.size(), execS, tasks / execS, allS, notifications,
                events, bumps));
    }

    /**
     * @param orderBy the rows' order ({@code k.id}, or {@code k.team_id, k.id})
     * @return {ticket, team} of the OPEN, assigned tickets of the teams bench-rem-* (bench/sql/server-data.sql)
     */
    static List<UUID[]> remTickets(Connection db, String orderBy) throws Exception {
        List<UUID[]> tickets = new ArrayList<>();
        try (PreparedStatement ps = db.prepareStatement("SELECT k.id, k.team_id FROM ticket k JOIN team t ON t.id = k.team_id"
                + " WHERE t.slug LIKE 'bench-rem-%' AND k.status = 'OPEN' AND k.assignee_id IS NOT NULL ORDER BY " + orderBy);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                tickets.add(new UUID[] {rs.getObject(1, UUID.class), rs.getObject(2, UUID.class)});
            }
        }
        if (tickets.isEmpty()) {
            throw new IllegalStateException("no OPEN tickets of the teams bench-rem-*: load bench/sql/server-data.sql");
        }
        return tickets;
    }

    /** @return seconds from the first claim of the tasks (bench_claim) to the last one's completion */
    static double claimToLastCompletionSeconds(Connection db, List<UUID> ids) throws Exception {
        try (PreparedStatement ps = db.prepareStatement("SELECT extract(epoch FROM max(t.updated_at) - min(c.claimed_at))"
                + " FROM background_task t JOIN bench_claim c ON c.task_id = t.id WHERE t.id = ANY(?)")) {
            ps.setArray(1, db.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getDouble(1);
            }
        }
    }

    /** @return the sum of the tickets' versions */
    private static long ticketVersions(Connection db, UUID[] ticketIds) throws Exception {
        try (PreparedStatement ps = db.prepareStatement("SELECT coalesce(sum(version), 0) FROM ticket WHERE id = ANY(?)")) {
            ps.setArray(1, db.createArrayOf("uuid", ticketIds));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * Polls the ledger every 20 ms until every task is COMPLETED (fails on FAILED or after the timeout). A poll
     * counts only the ledger's unfinished rows (WAITING or RUNNING), each through the partial index of its
     * sweep, so it costs what is left to do, not one look-up per id; when nothing is left, one exact check
     * over the ids decides. (Issue 16 wave 3: the former poll, every id's status every 20 ms, cost PostgreSQL
     * about 1 ms per engine task, as much as the claim, and took that CPU from the engine it measured.)
     * Every bench database holds only this driver's tasks, so "nothing unfinished" is about these ids. Plain
     * index scans only, on this session: the bench databases are never analyzed after loading (autovacuum is
     * off on these machines), so the planner would scan the table, and a bitmap scan would visit the dead
     * entries of finished runs on every poll, where an index scan marks them dead once. Reset on return: the
     * engine's INSERT on this session took minutes with them.
     */
    static void awaitCompleted(Connection db, List<UUID> ids) throws Exception {
        try (var st = db.createStatement()) {
            st.execute("SET enable_seqscan = off");
            st.execute("SET enable_bitmapscan = off");
        }
        try {
            pollUntilCompleted(db, ids);
        } finally {
            try (var st = db.createStatement()) {
                st.execute("RESET enable_seqscan");
                st.execute("RESET enable_bitmapscan");
            }
        }
    }

    private static void pollUntilCompleted(Connection db, List<UUID> ids) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
        try (PreparedStatement left = db.prepareStatement("SELECT (SELECT count(*) FROM background_task"
                + " WHERE status = 'RUNNING') + (SELECT count(*) FROM background_task WHERE status = 'WAITING'"
                + " AND dispatched_at IS NULL) + (SELECT count(*) FROM background_task WHERE status = 'WAITING'"
                + " AND dispatched_at IS NOT NULL)");
                PreparedStatement exact = db.prepareStatement("SELECT count(*) FILTER (WHERE status = 'COMPLETED'),"
                        + " count(*) FILTER (WHERE status = 'FAILED') FROM background_task WHERE id = ANY(?)")) {
            exact.setArray(1, db.createArrayOf("uuid", ids.toArray()));
            while (true) {
                long unfinished;
                try (ResultSet rs = left.executeQuery()) {
                    rs.next();
                    unfinished = rs.getLong(1);
                }
                if (unfinished == 0) {
                    try (ResultSet rs = exact.executeQuery()) {
                        rs.next();
                        if (rs.getLong(2) > 0) {
                            throw new IllegalStateException(rs.getLong(2) + " tasks FAILED");
                        }
                        if (rs.getLong(1) == ids.size()) {
                            return;
                        }
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(unfinished + " tasks still unfinished after " + TIMEOUT_MS + " ms");
                }
                Thread.sleep(20);
            }
        }
    }

    /** The {@code i}-th request of {@link #closedLoops}, sent on the calling loop's own connection. */
    interface Request {
        void send(PlainHttp http, int i) throws Exception;
    }

    /**
     * {@code clients} closed loops, each on a blocking keep-alive connection of its own ({@link PlainHttp}), send
     * requests 0 .. {@code n - 1} between them, each loop the next one not yet taken. A failed request ends its
     * loop (the caller's count of answers tells). Started, not joined: see {@link #join}.
     */
    static List<Thread> closedLoops(Api api, int clients, int n, Request request) {
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            Thread t = new Thread(() -> {
                try (PlainHttp http = api.plainClient()) {
                    int i;
                    while ((i = next.getAndIncrement()) < n) {
                        request.send(http, i);
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            t.start();
            threads.add(t);
        }
        return threads;
    }

    /** Waits for each of the threads, at most {@link #TIMEOUT_MS} each. */
    static void join(List<Thread> threads) throws InterruptedException {
        for (Thread t : threads) {
            t.join(TIMEOUT_MS);
        }
    }

    /**
     * Sends {@code n} requests on a fixed schedule, the {@code i}-th at {@code startNs + i * periodNs}
     * ({@link System#nanoTime()}), asynchronously: a slow answer does not delay the next request.
     *
     * @return the answers' futures, in order
     */
    static <T> List<CompletableFuture<T>> paced(int n, long startNs, long periodNs, IntFunction<CompletableFuture<T>> send)
            throws InterruptedException {
        List<CompletableFuture<T>> sent = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long wait = startNs + i * periodNs - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            sent.add(send.apply(i));
        }
        return sent;
    }

    static double pct(double[] sorted, double p) {
        int idx = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, idx))];
    }

    static long micros(Timestamp t) {
        return t.getTime() / 1000 * 1_000_000 + t.getNanos() / 1000;
    }

    static long epochMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }
}
