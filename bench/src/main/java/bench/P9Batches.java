package bench;

import com.google.gson.JsonParser;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * P9 (issue 52): many reminders created as batches against the same reminders created one POST each, through the
 * API of a running server. The reminders are those of P2r: the OPEN tickets of the teams bench-rem-1..8
 * (bench/sql/server-data.sql), the bench owner their OWNER, each reminder one transaction with the team lock, a
 * notification, the ticket's version, a system event and the lease-checked completion.
 *
 * <p>{@code batch}: {@code tasks / batchSize} batches ({@code POST /teams/{t}/batches}, the teams in turn), each of
 * {@code batchSize} reminders of its team's tickets with a BATCH_REPORT completion, sent by {@code clients} closed
 * loops. {@code single}: the same {@code tasks} reminders, the same teams and tickets, one {@code POST
 * /teams/{t}/tasks} each, by {@code clients} closed loops. Both report the create time (first request to last
 * answer), the end-to-end time (first request to the last reminder COMPLETED, and in {@code batch} also every
 * completion COMPLETED), and the execution time (first claim to last completion, bench_claim), which compares
 * what the batch's bookkeeping (V18's trigger on every child's end, the completions) costs the workers.
 *
 * <p>{@code plain}: the same reminders as plain rows inserted in SQL, no batch, no HTTP ({@link #plain}).
 *
 * <p>Usage: {@code P9Batches batch|single|plain <base url> <key> <jdbc url> <db user> <tasks> <batch size> <clients>}.
 * Prints one JSON line. Fails unless every reminder (and completion) COMPLETED and each reminder notified once.
 */
public final class P9Batches {
    static final String MESSAGE = "P9 bench reminder: please follow up.";

    public static void main(String[] args) throws Exception {
        Api api = new Api(args[1]);
        String token = Api.token(Path.of(args[2]), Api.OWNER, "bench-owner");
        int tasks = Integer.parseInt(args[5]);
        int batchSize = Integer.parseInt(args[6]);
        int clients = Integer.parseInt(args[7]);
        try (Connection db = DriverManager.getConnection(args[3], args[4], "")) {
            List<UUID[]> tickets = tickets(db);
            if (args[0].equals("batch")) {
                batches(api, token, db, tickets, tasks, batchSize, clients);
            } else if (args[0].equals("plain")) {
                plain(api, token, db, tickets, tasks, batchSize);
            } else {
                singles(api, token, db, tickets, tasks, clients);
            }
        }
    }

    /** @return {ticket, team} of the OPEN, assigned tickets of the teams bench-rem-*, grouped by team */
    static List<UUID[]> tickets(Connection db) throws Exception {
        return P4Latency.remTickets(db, "k.team_id, k.id");
    }

    private static List<UUID> teams(List<UUID[]> tickets) {
        return tickets.stream().map(t -> t[1]).distinct().toList();
    }

    private static List<UUID> ticketsOf(List<UUID[]> tickets, UUID team) {
        return tickets.stream().filter(t -> t[1].equals(team)).map(t -> t[0]).toList();
    }

    private static String reminder(UUID ticket) {
        return "{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket + "\",\"message\":\"" + MESSAGE
                + "\",\"recipients\":\"ASSIGNEE\"}";
    }

    static void batches(Api api, String token, Connection db, List<UUID[]> tickets, int tasks, int batchSize,
            int clients) throws Exception {
        List<UUID> teams = teams(tickets);
        int n = tasks / batchSize;
        String[] bodies = new String[n];
        UUID[] teamOf = new UUID[n];
        for (int b = 0; b < n; b++) {
            teamOf[b] = teams.get(b % teams.size());
            List<UUID> own = ticketsOf(tickets, teamOf[b]);
            StringBuilder items = new StringBuilder();
            for (int i = 0; i < batchSize; i++) {
                items.append(i == 0 ? "" : ",").append(reminder(own.get(i % own.size())));
            }
            bodies[b] = "{\"label\":\"P9 " + b + "\",\"items\":[" + items + "],\"completion\":{\"kind\":\"BATCH_REPORT\"}}";
        }
        List<UUID> batchIds = Collections.synchronizedList(new ArrayList<>());
        long t0 = System.nanoTime();
        P4Latency.join(P4Latency.closedLoops(api, clients, n, (http, b) -> {
            PlainHttp.Response r = http.postJson("/api/v1/teams/" + teamOf[b] + "/batches", token, bodies[b]);
            if (r.status() != 202) {
                throw new IllegalStateException("batch create: " + r.status() + " " + r.body());
            }
            batchIds.add(UUID.fromString(JsonParser.parseString(r.body()).getAsJsonObject().get("id").getAsString()));
        }));
        double createdS = (System.nanoTime() - t0) / 1e9;
        if (batchIds.size() != n) {
            throw new IllegalStateException("created " + batchIds.size() + " of " + n + " batches");
        }
        List<UUID> children = ids(db, "SELECT id FROM background_task WHERE batch_id = ANY(?)", batchIds);
        P4Latency.awaitCompleted(db, children);
        double childrenS = (System.nanoTime() - t0) / 1e9;
        List<UUID> completions = awaitCompletions(db, batchIds);
        P4Latency.awaitCompleted(db, completions);
        double allS = (System.nanoTime() - t0) / 1e9;
        double execS = P4Latency.claimToLastCompletionSeconds(db, children);
        check(db, children, tasks);
        System.err.printf(Locale.ROOT, "P9 ours, batches: %d batches of %d created in %.3f s (%.0f tasks/s); children"
                + " COMPLETED after %.2f s, completions after %.2f s; first claim -> last child %.2f s%n", n, batchSize,
                createdS, tasks / createdS, childrenS, allS, execS);
        System.out.println(String.format(Locale.ROOT, "{\"mode\":\"batch\",\"tasks\":%d,\"batchSize\":%d,\"clients\":%d,"
                + "\"createSeconds\":%.3f,\"createPerSecond\":%.1f,\"childrenCompletedSeconds\":%.3f,"
                + "\"allCompletedSeconds\":%.3f,\"claimToLastCompletionSeconds\":%.3f,\"completions\":%d}", tasks,
                batchSize, clients, createdS, tasks / createdS, childrenS, allS, execS, completions.size()));
    }

    static void singles(Api api, String token, Connection db, List<UUID[]> tickets, int tasks, int clients)
            throws Exception {
        List<UUID> teams = teams(tickets);
        String[] bodies = new String[tasks];
        UUID[] teamOf = new UUID[tasks];
        int batchSize = 1000; // the same reminders as `batch`: the i-th of batch b goes to b's team
        for (int k = 0; k < tasks; k++) {
            int b = k / batchSize;
            teamOf[k] = teams.get(b % teams.size());
            List<UUID> own = ticketsOf(tickets, teamOf[k]);
            bodies[k] = reminder(own.get((k % batchSize) % own.size()));
        }
        List<UUID> ids = Collections.synchronizedList(new ArrayList<>());
        long t0 = System.nanoTime();
        P4Latency.join(P4Latency.closedLoops(api, clients, tasks, (http, k) -> ids.add(api.create(http, token, teamOf[k],
                bodies[k]))));
        double createdS = (System.nanoTime() - t0) / 1e9;
        if (ids.size() != tasks) {
            throw new IllegalStateException("created " + ids.size() + " of " + tasks);
        }
        P4Latency.awaitCompleted(db, ids);
        double allS = (System.nanoTime() - t0) / 1e9;
        double execS = P4Latency.claimToLastCompletionSeconds(db, ids);
        check(db, ids, tasks);
        System.err.printf(Locale.ROOT, "P9 ours, one POST each: %d created in %.3f s (%.0f tasks/s); all COMPLETED after"
                + " %.2f s; first claim -> last %.2f s%n", tasks, createdS, tasks / createdS, allS, execS);
        System.out.println(String.format(Locale.ROOT, "{\"mode\":\"single\",\"tasks\":%d,\"clients\":%d,"
                + "\"createSeconds\":%.3f,\"createPerSecond\":%.1f,\"allCompletedSeconds\":%.3f,"
                + "\"claimToLastCompletionSeconds\":%.3f}", tasks, clients, createdS, tasks / createdS, allS, execS));
    }

    /**
     * The batches' reminders without a batch: the same teams and tickets in the same order, as plain WAITING rows
     * inserted by one SQL statement (each a copy of a reminder the API created for its ticket, as P2r's engine mode
     * does), dispatched by the server's sweep. Its execution time (first claim to last completion) is what the batch's
     * children take without the batch's bookkeeping.
     */
    static void plain(Api api, String token, Connection db, List<UUID[]> tickets, int tasks, int batchSize)
            throws Exception {
        java.util.Map<UUID, UUID> template = new java.util.HashMap<>(); // ticket -> a reminder the API created for it
        for (UUID[] t : tickets) {
            template.put(t[0], Api.idOf(api.create(token, t[1], reminder(t[0]))));
        }
        P4Latency.awaitCompleted(db, new ArrayList<>(template.values()));
        List<UUID> teams = teams(tickets);
        UUID[] sources = new UUID[tasks];
        for (int k = 0; k < tasks; k++) {
            List<UUID> own = ticketsOf(tickets, teams.get((k / batchSize) % teams.size()));
            sources[k] = template.get(own.get((k % batchSize) % own.size()));
        }
        List<UUID> ids = new ArrayList<>();
        db.setAutoCommit(true);
        try (PreparedStatement ps = db.prepareStatement("INSERT INTO background_task (id, kind, team_id, owner_id, scope,"
                + " filters, status, run, attempts, progress, run_at, created_at, updated_at)"
                + " SELECT gen_random_uuid(), 'REMINDER', s.team_id, s.owner_id, s.scope, s.filters, 'WAITING', 0, 0, 0,"
                + " now(), now(), now() FROM unnest(?::uuid[]) WITH ORDINALITY AS u(tid, ord)"
                + " JOIN background_task s ON s.id = u.tid ORDER BY u.ord RETURNING id")) {
            ps.setArray(1, db.createArrayOf("uuid", sources));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getObject(1, UUID.class));
                }
            }
        }
        if (ids.size() != tasks) {
            throw new IllegalStateException("inserted " + ids.size() + " of " + tasks + " reminder rows");
        }
        P4Latency.awaitCompleted(db, ids);
        double execS = P4Latency.claimToLastCompletionSeconds(db, ids);
        check(db, ids, tasks);
        System.err.printf(Locale.ROOT, "P9 ours, plain rows: %d reminders, first claim -> last %.2f s%n", tasks, execS);
        System.out.println(String.format(Locale.ROOT, "{\"mode\":\"plain\",\"tasks\":%d,\"claimToLastCompletionSeconds\":%.3f}",
                tasks, execS));
    }

    private static List<UUID> ids(Connection db, String sql, List<UUID> arg) throws Exception {
        List<UUID> out = new ArrayList<>();
        try (PreparedStatement ps = db.prepareStatement(sql)) {
            ps.setArray(1, db.createArrayOf("uuid", arg.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getObject(1, UUID.class));
                }
            }
        }
        return out;
    }

    /** Polls (every 20 ms, bounded) until every batch has its completion task; @return their ids */
    private static List<UUID> awaitCompletions(Connection db, List<UUID> batchIds) throws Exception {
        long deadline = System.nanoTime() + P4Latency.TIMEOUT_MS * 1_000_000L;
        while (System.nanoTime() < deadline) {
            List<UUID> done = ids(db, "SELECT completion_task_id FROM task_batch WHERE id = ANY(?)"
                    + " AND completion_task_id IS NOT NULL", batchIds);
            if (done.size() == batchIds.size()) {
                return done;
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("not every batch got its completion within " + P4Latency.TIMEOUT_MS + " ms");
    }

    /** Fails unless each reminder notified exactly once (its assignee). */
    private static void check(Connection db, List<UUID> ids, int tasks) throws Exception {
        try (PreparedStatement ps = db.prepareStatement("SELECT count(*) FROM notification WHERE task_id = ANY(?)")) {
            ps.setArray(1, db.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (rs.getLong(1) != tasks) {
                    throw new IllegalStateException("P9: " + tasks + " reminders COMPLETED but " + rs.getLong(1)
                            + " notifications");
                }
            }
        }
    }
}
