package bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/**
 * P8 (issue 30, R40): fair share across teams, through the API of a running server with the data of
 * bench/sql/p8-data.sql (ten flooding teams of 1 000 tickets each, team B with 100 open tickets and staff).
 *
 * <p>{@code pair}: team A (bench-flood-1) submits {@code flood} TEAM exports (each reads A's 1 000 tickets) as
 * fast as 8 closed loops can ({@link P4Latency#closedLoops}, a connection of its own each); 5 s after A's first
 * POST, team B (bench-b) submits 100 TEAM_STAFF reminders, one every 100 ms on a fixed schedule and asynchronously
 * ({@link P4Latency#paced}, as P4's latency run), each on its own ticket. Three scenarios, "B" (B alone, no delay),
 * "AB" (A's flood and B's reminders) and "A" (A alone), in ABBA order over {@code rounds} (1: B AB A; 2: B AB A A AB
 * B); each waits until all its tasks are COMPLETED and the ledger is vacuumed before the next. Measured per
 * scenario:
 * <ul>
 * <li>B: created → claimed of each reminder, {@code bench_claim.claimed_at - background_task.created_at} (server
 * clock, R7; the first claim), p50/p90/p99/max;</li>
 * <li>A: exports/s = {@code flood} / (first created_at → last completion, server clock); A's own created → claimed
 * p50 (the backlog's wait: what B's reminders would wait behind one FIFO list, as before issue 30);</li>
 * <li>AB: how many of A's exports were created but not yet claimed when B's last reminder was created
 * ({@code aWaitingAtLastB}; {@code floodOutlastedB} when above 0: else B never competed with a backlog and the
 * figure proves nothing), and by how long A's last claim came after it.</li>
 * </ul>
 *
 * <p>{@code shares}: the ten flooding teams submit {@code perTeam} TEAM exports each, interleaved round robin by 8
 * closed loops. In the 30 s window from the end of the submission (server clock), each team's claims
 * ({@code bench_claim} rows) / all claims in the window, × 10 (1.0 = an equal share), and whether every team still
 * had exports not yet claimed at the window's end ({@code allBackloggedThroughWindow}: else an equal share was not
 * asked of the queue). The exports still WAITING after the window are then cancelled through the API (R23) and the
 * rest awaited.
 *
 * <p>Usage: {@code P8FairShare pair <base url> <key> <jdbc url> <db user> <flood> <rounds>} or
 * {@code P8FairShare shares <base url> <key> <jdbc url> <db user> <perTeam>}. Prints one JSON line; progress on
 * stderr.
 */
public final class P8FairShare {

    static final UUID TEAM_B = UUID.fromString("7b900000-0000-4000-8000-000000000000");
    static final String EXPORT = "{\"kind\":\"EXPORT\",\"scope\":\"TEAM\"}";
    static final int CLIENTS = 8;
    static final int TEAMS = 10;
    static final int REMINDERS = 100;
    /** B's slowest reminders of a round whose steps are split ({@code bSlowest}). */
    static final int SLOWEST = 5;
    static final long B_DELAY_MS = 5_000;
    static final long B_PERIOD_MS = 100;
    static final long WINDOW_MS = 30_000;
    static final int WARM_EXPORTS = 300;

    /** @return the id of team bench-flood-{@code n} (bench/sql/p8-data.sql); team A is 1 */
    static UUID floodTeam(int n) {
        return UUID.fromString(String.format(Locale.ROOT, "7b800000-0000-4000-8000-%012d", n));
    }

    public static void main(String[] args) throws Exception {
        Api api = new Api(args[1]);
        String token = Api.token(Path.of(args[2]), Api.OWNER, "bench-owner");
        int n = Integer.parseInt(args[5]);
        try (Connection db = DriverManager.getConnection(args[3], args[4], "")) {
            JsonObject out = args[0].equals("pair") ? pair(api, token, db, n, Integer.parseInt(args[6]))
                    : shares(api, token, db, n);
            System.out.println(out);
        }
    }

    // ---- pair ----

    static JsonObject pair(Api api, String token, Connection db, int flood, int rounds) throws Exception {
        List<UUID> tickets = new ArrayList<>();
        try (PreparedStatement ps = db.prepareStatement("SELECT id FROM ticket WHERE team_id = ? ORDER BY created_at")) {
            ps.setObject(1, TEAM_B);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    tickets.add(rs.getObject(1, UUID.class));
                }
            }
        }
        if (tickets.size() < REMINDERS) {
            throw new IllegalStateException("team B has " + tickets.size() + " tickets, needs " + REMINDERS);
        }
        progress("P8 pair: warm-up, %d exports of A and 20 reminders of B, not counted", WARM_EXPORTS);
        warm(api, token, db, tickets);
        // A whole A + B scenario, not counted: after the short warm-up alone, the first counted A + B round (position 2)
        // ran A at 0.76-0.80 of the second in four runs of 2026-12-05, whatever the build, and set A's ratio alone.
        vacuum(db);
        progress("P8 pair: warm-up, one A + B scenario, not counted");
        System.err.println("    warm-up " + scenario(api, token, db, "AB", flood, tickets));
        JsonArray out = new JsonArray();
        for (int r = 1; r <= rounds; r++) {
            for (String scenario : r % 2 == 1 ? List.of("B", "AB", "A") : List.of("A", "AB", "B")) {
                vacuum(db);
                progress("P8 pair round %d/%d: %s", r, rounds, scenario);
                long t0 = System.nanoTime();
                JsonObject o = scenario(api, token, db, scenario, flood, tickets);
                o.addProperty("round", r);
                o.addProperty("wallSeconds", round2((System.nanoTime() - t0) / 1e9));
                System.err.println("    " + o);
                out.add(o);
            }
        }
        JsonObject result = new JsonObject();
        result.addProperty("flood", flood);
        result.addProperty("ticketsPerTeam", 1000);
        result.addProperty("reminders", REMINDERS);
        result.addProperty("clients", CLIENTS);
        result.addProperty("warmupExports", WARM_EXPORTS);
        result.addProperty("warmupScenarios", "AB");
        result.add("rounds", out);
        return result;
    }

    /**
     * {@link #WARM_EXPORTS} exports of A by the closed loops, then 20 reminders of B, not counted: a warm server (JIT,
     * pools) for the first scenario. With 20 exports only, the first A + B round of a smoke run (its position 2 of
     * the ABBA order) ran A at half the rate of the later rounds.
     */
    private static void warm(Api api, String token, Connection db, List<UUID> tickets) throws Exception {
        List<UUID> ids = Collections.synchronizedList(new ArrayList<>());
        P4Latency.join(P4Latency.closedLoops(api, CLIENTS, WARM_EXPORTS,
                (http, i) -> ids.add(api.create(http, token, floodTeam(1), EXPORT))));
        for (int i = 0; i < 20; i++) {
            ids.add(Api.idOf(api.create(token, TEAM_B, reminder(tickets.get(i)))));
        }
        P4Latency.awaitCompleted(db, ids);
    }

    private static String reminder(UUID ticket) {
        return "{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket + "\",\"message\":\"P8\",\"recipients\":\"TEAM_STAFF\"}";
    }

    private static JsonObject scenario(Api api, String token, Connection db, String scenario, int flood, List<UUID> tickets)
            throws Exception {
        boolean withA = scenario.contains("A");
        boolean withB = scenario.contains("B");
        List<UUID> a = Collections.synchronizedList(new ArrayList<>());
        long t0 = System.nanoTime();
        List<Thread> loops = withA ? P4Latency.closedLoops(api, CLIENTS, flood,
                (http, i) -> a.add(api.create(http, token, floodTeam(1), EXPORT))) : List.of();
        List<UUID> b = new ArrayList<>();
        Map<UUID, Instant> answered = new ConcurrentHashMap<>(); // the driver's clock is the server's: one machine
        if (withB) {
            long start = t0 + TimeUnit.MILLISECONDS.toNanos(withA ? B_DELAY_MS : 0);
            for (CompletableFuture<UUID> f : P4Latency.paced(REMINDERS, start, TimeUnit.MILLISECONDS.toNanos(B_PERIOD_MS),
                    i -> api.createAsync(token, TEAM_B, reminder(tickets.get(i))).thenApply(r -> {
                        Instant at = Instant.now();
                        UUID id = Api.idOf(r);
                        answered.put(id, at);
                        return id;
                    }))) {
                b.add(f.get(60, TimeUnit.SECONDS));
            }
        }
        P4Latency.join(loops);
        if (a.size() != (withA ? flood : 0)) {
            throw new IllegalStateException("A created " + a.size() + " of " + flood);
        }
        List<UUID> all = new ArrayList<>(a);
        all.addAll(b);
        P4Latency.awaitCompleted(db, all);
        JsonObject o = new JsonObject();
        o.addProperty("scenario", scenario);
        if (withB) {
            double[] w = createdToClaimedMs(db, b);
            o.addProperty("bP50Ms", round2(P4Latency.pct(w, 50)));
            o.addProperty("bP90Ms", round2(P4Latency.pct(w, 90)));
            o.addProperty("bP99Ms", round2(P4Latency.pct(w, 99)));
            o.addProperty("bMaxMs", round2(w[w.length - 1]));
            o.add("bSlowest", slowestSteps(db, b, answered));
        }
        if (withA) {
            double[] w = createdToClaimedMs(db, a);
            try (PreparedStatement ps = db.prepareStatement("SELECT extract(epoch FROM max(created_at) - min(created_at)),"
                    + " extract(epoch FROM max(updated_at) - min(created_at)) FROM background_task WHERE id = ANY(?)")) {
                ps.setArray(1, db.createArrayOf("uuid", a.toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    o.addProperty("aSubmitSeconds", round2(rs.getDouble(1)));
                    o.addProperty("aSeconds", round2(rs.getDouble(2)));
                    o.addProperty("aTasksPerSecond", round2(flood / rs.getDouble(2)));
                }
            }
            o.addProperty("aWaitP50Ms", round2(P4Latency.pct(w, 50)));
            o.addProperty("aWaitMaxMs", round2(w[w.length - 1]));
        }
        if (withA && withB) {
            backlogAtLastB(db, a, b, o);
        }
        return o;
    }

    /**
     * Adds {@code aWaitingAtLastB} (A's exports created, not yet claimed, when B's last reminder was created),
     * {@code aLastClaimAfterLastBSeconds} (A's last claim - that instant; negative when the flood ended first) and
     * {@code floodOutlastedB}.
     */
    private static void backlogAtLastB(Connection db, List<UUID> a, List<UUID> b, JsonObject o) throws Exception {
        try (PreparedStatement ps = db.prepareStatement("WITH last_b AS (SELECT max(created_at) AS at FROM background_task"
                + " WHERE id = ANY(?)), first_claim AS (SELECT t.id, t.created_at, min(c.claimed_at) AS at"
                + " FROM background_task t JOIN bench_claim c ON c.task_id = t.id WHERE t.id = ANY(?) GROUP BY t.id, t.created_at)"
                + " SELECT count(*) FILTER (WHERE f.created_at <= l.at AND f.at > l.at), extract(epoch FROM max(f.at) - l.at)"
                + " FROM first_claim f CROSS JOIN last_b l GROUP BY l.at")) {
            ps.setArray(1, db.createArrayOf("uuid", b.toArray()));
            ps.setArray(2, db.createArrayOf("uuid", a.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                o.addProperty("aWaitingAtLastB", rs.getLong(1));
                o.addProperty("aLastClaimAfterLastBSeconds", round2(rs.getDouble(2)));
                o.addProperty("floodOutlastedB", rs.getLong(1) > 0);
            }
        }
    }

    /**
     * The step split of B's {@link #SLOWEST} slowest reminders (created → claimed), each as
     * {@code {totalMs, toInsertMs, insertToAnswerMs, insertToClaimMs, claimToRowMs}}: created (the POST's clock after
     * its membership read) → its INSERT ran in PostgreSQL (bench_insert: the kind's checks and the ticket read) →
     * the driver had the answer (commit, Redis add, response) / the claim's clock (commit, Redis add, fetch, claim's
     * start) → the claim's UPDATE ran (bench_claim.seen_at). Diagnostic only (issue 30: which step the tail is in).
     */
    private static JsonArray slowestSteps(Connection db, List<UUID> ids, Map<UUID, Instant> answered) throws Exception {
        List<double[]> rows = new ArrayList<>();
        try (PreparedStatement ps = db.prepareStatement("SELECT t.id, t.created_at, i.inserted_at, min(c.claimed_at),"
                + " min(c.seen_at) FROM background_task t JOIN bench_insert i ON i.task_id = t.id"
                + " JOIN bench_claim c ON c.task_id = t.id WHERE t.id = ANY(?) GROUP BY t.id, t.created_at, i.inserted_at")) {
            ps.setArray(1, db.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long created = P4Latency.micros(rs.getTimestamp(2));
                    long inserted = P4Latency.micros(rs.getTimestamp(3));
                    long claimed = P4Latency.micros(rs.getTimestamp(4));
                    long seen = P4Latency.micros(rs.getTimestamp(5));
                    Instant ans = answered.get(rs.getObject(1, UUID.class));
                    long answer = ans == null ? inserted : ans.getEpochSecond() * 1_000_000L + ans.getNano() / 1000;
                    rows.add(new double[] {(claimed - created) / 1000.0, (inserted - created) / 1000.0,
                            (answer - inserted) / 1000.0, (claimed - inserted) / 1000.0, (seen - claimed) / 1000.0});
                }
            }
        }
        rows.sort((x, y) -> Double.compare(y[0], x[0]));
        JsonArray out = new JsonArray();
        for (double[] r : rows.subList(0, Math.min(SLOWEST, rows.size()))) {
            JsonObject o = new JsonObject();
            o.addProperty("totalMs", round2(r[0]));
            o.addProperty("toInsertMs", round2(r[1]));
            o.addProperty("insertToAnswerMs", round2(r[2]));
            o.addProperty("insertToClaimMs", round2(r[3]));
            o.addProperty("claimToRowMs", round2(r[4]));
            out.add(o);
        }
        return out;
    }

    /** @return created → claimed (first claim) of each task, ms (server clock, µs resolution), sorted */
    private static double[] createdToClaimedMs(Connection db, List<UUID> ids) throws Exception {
        double[] out = new double[ids.size()];
        int i = 0;
        try (PreparedStatement ps = db.prepareStatement("SELECT t.created_at, min(c.claimed_at) FROM background_task t"
                + " JOIN bench_claim c ON c.task_id = t.id WHERE t.id = ANY(?) GROUP BY t.id, t.created_at")) {
            ps.setArray(1, db.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next() && i < out.length) {
                    out[i++] = (P4Latency.micros(rs.getTimestamp(2)) - P4Latency.micros(rs.getTimestamp(1))) / 1000.0;
                }
            }
        }
        if (i != ids.size()) {
            throw new IllegalStateException("claims recorded for " + i + " of " + ids.size() + " tasks");
        }
        Arrays.sort(out);
        return out;
    }

    // ---- shares ----

    static JsonObject shares(Api api, String token, Connection db, int perTeam) throws Exception {
        List<UUID> teams = new ArrayList<>();
        for (int i = 1; i <= TEAMS; i++) {
            teams.add(floodTeam(i));
        }
        vacuum(db);
        progress("P8 shares: %d teams x %d exports", TEAMS, perTeam);
        List<UUID> ids = Collections.synchronizedList(new ArrayList<>());
        long t0 = System.nanoTime();
        P4Latency.join(P4Latency.closedLoops(api, CLIENTS, perTeam * TEAMS,
                (http, i) -> ids.add(api.create(http, token, teams.get(i % TEAMS), EXPORT))));
        long submitted = System.nanoTime();
        if (ids.size() != perTeam * TEAMS) {
            throw new IllegalStateException("created " + ids.size() + " of " + perTeam * TEAMS);
        }
        Timestamp from;
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery("SELECT now()")) {
            rs.next();
            from = rs.getTimestamp(1);
        }
        Timestamp to = new Timestamp(from.getTime() + WINDOW_MS);
        progress("P8 shares: submitted in %.1f s; window of %d s", (submitted - t0) / 1e9, WINDOW_MS / 1000);
        // the window's end, and 2 s for the claims made just before it to commit
        TimeUnit.NANOSECONDS.sleep(submitted + TimeUnit.MILLISECONDS.toNanos(WINDOW_MS + 2_000) - System.nanoTime());
        long[] claims = new long[TEAMS];
        long[] waiting = new long[TEAMS];
        try (PreparedStatement ps = db.prepareStatement("WITH c AS (SELECT task_id, count(*) FILTER (WHERE claimed_at >= ?"
                + " AND claimed_at < ?) AS in_window, count(*) FILTER (WHERE claimed_at < ?) AS before_end FROM bench_claim"
                + " WHERE task_id = ANY(?) GROUP BY task_id) SELECT t.team_id, coalesce(sum(c.in_window), 0),"
                + " count(*) FILTER (WHERE coalesce(c.before_end, 0) = 0) FROM background_task t"
                + " LEFT JOIN c ON c.task_id = t.id WHERE t.id = ANY(?) GROUP BY t.team_id")) {
            ps.setTimestamp(1, from);
            ps.setTimestamp(2, to);
            ps.setTimestamp(3, to);
            ps.setArray(4, db.createArrayOf("uuid", ids.toArray()));
            ps.setArray(5, db.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int team = teams.indexOf(rs.getObject(1, UUID.class));
                    claims[team] = rs.getLong(2);
                    waiting[team] = rs.getLong(3);
                }
            }
        }
        long total = Arrays.stream(claims).sum();
        JsonArray ratios = new JsonArray();
        for (long c : claims) {
            ratios.add(round3(total == 0 ? 0 : c * (double) TEAMS / total));
        }
        double min = total == 0 ? 0 : Arrays.stream(claims).min().getAsLong() * (double) TEAMS / total;
        double max = total == 0 ? 0 : Arrays.stream(claims).max().getAsLong() * (double) TEAMS / total;
        JsonObject o = new JsonObject();
        o.addProperty("perTeam", perTeam);
        o.addProperty("teams", TEAMS);
        o.addProperty("ticketsPerTeam", 1000);
        o.addProperty("clients", CLIENTS);
        o.addProperty("submitSeconds", round2((submitted - t0) / 1e9));
        o.addProperty("windowSeconds", WINDOW_MS / 1000);
        o.addProperty("windowClaimsPerSecond", round2(total * 1000.0 / WINDOW_MS));
        o.add("claimsInWindow", array(claims));
        o.add("shareRatios", ratios);
        o.addProperty("minRatio", round3(min));
        o.addProperty("maxRatio", round3(max));
        o.add("notClaimedAtWindowEnd", array(waiting));
        o.addProperty("allBackloggedThroughWindow", Arrays.stream(waiting).allMatch(w -> w > 0));
        System.err.println("    " + o);
        long cancel = System.nanoTime();
        o.addProperty("cancelledAfterWindow", cancelTheRest(api, token, db, ids));
        o.addProperty("cancelSeconds", round2((System.nanoTime() - cancel) / 1e9));
        return o;
    }

    /** Cancels (R23) the tasks of {@code ids} still WAITING, awaits the others' completion; @return how many were cancelled */
    private static int cancelTheRest(Api api, String token, Connection db, List<UUID> ids) throws Exception {
        List<UUID> waiting = new ArrayList<>();
        try (PreparedStatement ps = db.prepareStatement("SELECT id FROM background_task WHERE id = ANY(?) AND status = 'WAITING'")) {
            ps.setArray(1, db.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    waiting.add(rs.getObject(1, UUID.class));
                }
            }
        }
        progress("P8 shares: cancelling the %d exports still waiting", waiting.size());
        Set<UUID> cancelled = Collections.synchronizedSet(new HashSet<>());
        P4Latency.join(P4Latency.closedLoops(api, CLIENTS, waiting.size(), (http, i) -> {
            if (api.cancel(http, token, waiting.get(i))) {
                cancelled.add(waiting.get(i));
            }
        }));
        List<UUID> rest = new ArrayList<>(ids);
        rest.removeAll(cancelled);
        P4Latency.awaitCompleted(db, rest);
        return cancelled.size();
    }

    // ---- plumbing ----

    /**
     * Between rounds, not timed: what autovacuum would do between bursts (it is off on these machines; bench/run's
     * vacuum_ours), then a {@code CHECKPOINT}, so that no round pays the I/O the round before left behind. A flood of
     * 2 000 exports writes about 0.5 GB of WAL (their results), which starts a checkpoint that ran on through the
     * next round: in three runs of 2026-12-06 the A + B round after two A rounds (ABBA) saw every backend's
     * {@code COMMIT} stall for 180-270 ms at once (log_min_duration_statement), a WAL flush behind the
     * checkpoint's writes, B alone after the warm-up likewise. Every scenario gets the same clean start.
     */
    private static void vacuum(Connection db) throws Exception {
        try (Statement st = db.createStatement()) {
            st.execute("VACUUM (ANALYZE) background_task");
            st.execute("VACUUM (ANALYZE) task_result_chunk");
            st.execute("CHECKPOINT");
        }
    }

    /** A progress line on stderr, with the 1-minute load average. */
    private static void progress(String format, Object... args) throws Exception {
        System.err.println(String.format(Locale.ROOT, format, args) + " (load "
                + Files.readString(Path.of("/proc/loadavg")).split(" ")[0] + ")");
    }

    private static JsonArray array(long[] values) {
        JsonArray a = new JsonArray();
        for (long v : values) {
            a.add(v);
        }
        return a;
    }

    private static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }

    private static double round3(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
