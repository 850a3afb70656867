package bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * P8 (issue 30): fair share across teams, through the API of a running server (bench/sql/p8-data.sql).
 *
 * <p>{@code pair}: team A (bench-flood-1, 1 000 tickets) submits {@code flood} TEAM exports as fast as 8 client
 * threads can (each export reads the team's 1 000 tickets); 5 s after A's first POST, team B (bench-b) submits 100
 * reminders over 10 s (one every 100 ms, asynchronously, each on its own ticket). Three scenarios in the order
 * B alone, A+B, A alone, A alone, A+B, B alone, each waiting until all its tasks are COMPLETED. B's latency is
 * created → claimed ({@code bench_claim.claimed_at - created_at}, server clock, R7); A's throughput is its
 * exports / (last completion - first creation). Also reported: A's own created → claimed p50 (the backlog's
 * wait: what B's reminders would wait behind one FIFO list) and whether A still had exports waiting when B's
 * last reminder was created ({@code floodOutlastedB}: without it the figure proves nothing).
 *
 * <p>{@code shares}: the ten flood teams submit {@code perTeam} exports each, interleaved round robin by 8 client
 * threads; over the 30 s after the submission ends, each team's share of the claims / (1/10).
 *
 * <p>Usage: {@code P8FairShare pair|shares <base url> <key> <jdbc url> <db user> <flood | perTeam>}. Prints one
 * JSON line.
 */
public final class P8FairShare {
    static final UUID TEAM_B = UUID.fromString("7b900000-0000-4000-8000-000000000000");
    static final String EXPORT = "{\"kind\":\"EXPORT\",\"scope\":\"TEAM\"}";
    static final int REMINDERS = 100;
    static final long B_DELAY_MS = 5_000;
    static final long B_PERIOD_MS = 100;
    static final long WINDOW_MS = 30_000;

    static UUID flood(int n) {
        return UUID.fromString(String.format("7b800000-0000-4000-8000-%012d", n));
    }

    public static void main(String[] args) throws Exception {
        Api api = new Api(args[1]);
        String token = Api.token(Path.of(args[2]), Api.OWNER, "bench-owner");
        int n = Integer.parseInt(args[5]);
        try (Connection db = DriverManager.getConnection(args[3], args[4], "")) {
            if (args[0].equals("pair")) {
                pair(api, token, db, n);
            } else {
                shares(api, token, db, n);
            }
        }
    }

    static void pair(Api api, String token, Connection db, int flood) throws Exception {
        List<UUID> tickets = new ArrayList<>();
        try (PreparedStatement ps = db.prepareStatement("SELECT id FROM ticket WHERE team_id = ? ORDER BY created_at")) {
            ps.setObject(1, TEAM_B);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    tickets.add(rs.getObject(1, UUID.class));
                }
            }
        }
        warm(api, token, db, tickets);
        List<String> rounds = new ArrayList<>();
        for (String scenario : List.of("B", "AB", "A", "A", "AB", "B")) {
            vacuum(db);
            System.err.printf(Locale.ROOT, "P8 pair: %s (load %s)%n", scenario, Load.now());
            rounds.add(scenario(api, token, db, scenario, flood, tickets));
        }
        System.out.println("{\"flood\":" + flood + ",\"reminders\":" + REMINDERS + ",\"rounds\":[" + String.join(",", rounds)
                + "]}");
    }

    /**
     * What autovacuum does between bursts on a production database (off on these machines): each round's 2 000
     * exports leave dead row versions of their ledger rows and result chunks, and the later rounds would pay for
     * them (A's rate fell from 54 to 34 exports/s over four rounds without it). Not timed.
     */
    private static void vacuum(Connection db) throws Exception {
        boolean auto = db.getAutoCommit();
        db.setAutoCommit(true);
        try (var st = db.createStatement()) {
            st.execute("VACUUM (ANALYZE) background_task");
            st.execute("VACUUM (ANALYZE) task_result_chunk");
        } finally {
            db.setAutoCommit(auto);
        }
    }

    /** 20 exports of A and 20 reminders of B, uncounted: a warm server. */
    private static void warm(Api api, String token, Connection db, List<UUID> tickets) throws Exception {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            ids.add(Api.idOf(api.create(token, flood(1), EXPORT)));
            ids.add(Api.idOf(api.create(token, TEAM_B, reminder(tickets.get(i)))));
        }
        P4Latency.awaitCompleted(db, ids);
    }

    private static String reminder(UUID ticket) {
        return "{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket + "\",\"message\":\"P8\",\"recipients\":\"TEAM_STAFF\"}";
    }

    private static String scenario(Api api, String token, Connection db, String scenario, int flood, List<UUID> tickets)
            throws Exception {
        boolean withA = scenario.contains("A");
        boolean withB = scenario.contains("B");
        List<UUID> a = Collections.synchronizedList(new ArrayList<>());
        long t0 = System.nanoTime();
        Thread[] threads = withA ? submit(api, token, List.of(flood(1)), flood, a) : new Thread[0];
        List<UUID> b = new ArrayList<>();
        if (withB) {
            long start = t0 + TimeUnit.MILLISECONDS.toNanos(withA ? B_DELAY_MS : 0);
            List<CompletableFuture<UUID>> sent = new ArrayList<>();
            for (int i = 0; i < REMINDERS; i++) {
                long wait = start + TimeUnit.MILLISECONDS.toNanos(i * B_PERIOD_MS) - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                sent.add(api.createAsync(token, TEAM_B, reminder(tickets.get(i))).thenApply(Api::idOf));
            }
            for (CompletableFuture<UUID> f : sent) {
                b.add(f.get(60, TimeUnit.SECONDS));
            }
        }
        for (Thread t : threads) {
            t.join(P4Latency.TIMEOUT_MS);
        }
        if (a.size() != (withA ? flood : 0)) {
            throw new IllegalStateException("A created " + a.size() + " of " + flood);
        }
        List<UUID> all = new ArrayList<>(a);
        all.addAll(b);
        P4Latency.awaitCompleted(db, all);
        StringBuilder out = new StringBuilder("{\"scenario\":\"" + scenario + "\"");
        if (withB) {
            double[] waits = waits(db, b);
            out.append(String.format(Locale.ROOT, ",\"bP50Ms\":%.2f,\"bP90Ms\":%.2f,\"bP99Ms\":%.2f,\"bMaxMs\":%.2f",
                    P4Latency.pct(waits, 50), P4Latency.pct(waits, 90), P4Latency.pct(waits, 99), waits[waits.length - 1]));
        }
        if (withA) {
            double[] waits = waits(db, a);
            try (PreparedStatement ps = db.prepareStatement("SELECT extract(epoch FROM max(updated_at) - min(created_at))"
                    + " FROM background_task WHERE id = ANY(?)")) {
                ps.setArray(1, db.createArrayOf("uuid", a.toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    double s = rs.getDouble(1);
                    out.append(String.format(Locale.ROOT, ",\"aSeconds\":%.3f,\"aTasksPerSecond\":%.1f,\"aWaitP50Ms\":%.1f",
                            s, flood / s, P4Latency.pct(waits, 50)));
                }
            }
            if (withB) {
                out.append(",\"aClaimedAfterLastB\":").append(claimedAfter(db, a, b));
            }
        }
        String line = out.append('}').toString();
        System.err.println("    " + line);
        return line;
    }

    /** @return how many of A's exports were claimed after B's last reminder was created */
    private static long claimedAfter(Connection db, List<UUID> a, List<UUID> b) throws Exception {
        try (PreparedStatement ps = db.prepareStatement("SELECT count(*) FROM bench_claim c WHERE c.task_id = ANY(?)"
                + " AND c.claimed_at > (SELECT max(created_at) FROM background_task WHERE id = ANY(?))")) {
            ps.setArray(1, db.createArrayOf("uuid", a.toArray()));
            ps.setArray(2, db.createArrayOf("uuid", b.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** @return created → claimed of each task's first claim, ms, sorted */
    private static double[] waits(Connection db, List<UUID> ids) throws Exception {
        List<Double> w = new ArrayList<>();
        try (PreparedStatement ps = db.prepareStatement("SELECT extract(epoch FROM min(c.claimed_at) - t.created_at) * 1000"
                + " FROM background_task t JOIN bench_claim c ON c.task_id = t.id WHERE t.id = ANY(?) GROUP BY t.id,"
                + " t.created_at")) {
            ps.setArray(1, db.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    w.add(rs.getDouble(1));
                }
            }
        }
        if (w.size() != ids.size()) {
            throw new IllegalStateException("claims of " + w.size() + " of " + ids.size() + " tasks");
        }
        double[] out = w.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(out);
        return out;
    }

    /** 8 closed loops submit {@code total} TEAM exports, round robin over {@code teams}; ids into {@code ids}. */
    private static Thread[] submit(Api api, String token, List<UUID> teams, int total, List<UUID> ids) {
        AtomicInteger next = new AtomicInteger();
        Thread[] threads = new Thread[8];
        for (int c = 0; c < threads.length; c++) {
            threads[c] = new Thread(() -> {
                try (PlainHttp http = api.plainClient()) {
                    int i;
                    while ((i = next.getAndIncrement()) < total) {
                        ids.add(api.create(http, token, teams.get(i % teams.size()), EXPORT));
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            threads[c].start();
        }
        return threads;
    }

    static void shares(Api api, String token, Connection db, int perTeam) throws Exception {
        List<UUID> teams = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            teams.add(flood(i));
        }
        List<UUID> ids = Collections.synchronizedList(new ArrayList<>());
        vacuum(db);
        System.err.printf(Locale.ROOT, "P8 shares: 10 teams x %d exports (load %s)%n", perTeam, Load.now());
        long t0 = System.nanoTime();
        for (Thread t : submit(api, token, teams, perTeam * 10, ids)) {
            t.join(P4Latency.TIMEOUT_MS);
        }
        double submitS = (System.nanoTime() - t0) / 1e9;
        java.sql.Timestamp from;
        try (ResultSet rs = db.createStatement().executeQuery("SELECT now()")) {
            rs.next();
            from = rs.getTimestamp(1);
        }
        P4Latency.awaitCompleted(db, ids);
        long[] claims = new long[10];
        boolean backlogged = true;
        try (PreparedStatement ps = db.prepareStatement("SELECT t.team_id, count(*) FILTER (WHERE c.claimed_at >= ?::timestamptz"
                + " AND c.claimed_at < ?::timestamptz + interval '30 seconds'), max(c.claimed_at) >= ?::timestamptz + interval '30 seconds'"
                + " FROM background_task t JOIN bench_claim c ON c.task_id = t.id WHERE t.id = ANY(?) GROUP BY t.team_id")) {
            ps.setTimestamp(1, from);
            ps.setTimestamp(2, from);
            ps.setTimestamp(3, from);
            ps.setArray(4, db.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    claims[teams.indexOf(rs.getObject(1, UUID.class))] = rs.getLong(2);
                    backlogged &= rs.getBoolean(3);
                }
            }
        }
        long total = Arrays.stream(claims).sum();
        double[] ratio = Arrays.stream(claims).mapToDouble(c -> total == 0 ? 0 : c * 10.0 / total).toArray();
        String line = String.format(Locale.ROOT, "{\"perTeam\":%d,\"submitSeconds\":%.2f,\"windowSeconds\":30,"
                + "\"claimsInWindow\":%s,\"shareRatios\":[%s],\"minRatio\":%.3f,\"maxRatio\":%.3f,"
                + "\"allBackloggedThroughWindow\":%b}", perTeam, submitS, Arrays.toString(claims),
                String.join(",", Arrays.stream(ratio).mapToObj(r -> String.format(Locale.ROOT, "%.3f", r)).toList()),
                Arrays.stream(ratio).min().orElse(0), Arrays.stream(ratio).max().orElse(0), backlogged);
        System.err.println("    " + line);
        System.out.println(line);
    }

    /** The 1-minute load average, for the progress lines. */
    static final class Load {
        static String now() {
            try {
                return java.nio.file.Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
            } catch (java.io.IOException e) {
                return "?";
            }
        }
    }
}
