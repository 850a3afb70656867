package com.teamdesk.tasks.it.lifecycle;

import com.teamdesk.tasks.it.export.ClientQueue;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.Tokens;
import com.teamdesk.tasks.queue.JobState;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.testing.RedisPrefixCleanup;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 17 on two real server processes (A and B) sharing one private schema and one Redis prefix, the
 * production WAR with its deployed worker and EJB timers: stall recovery and dispatch coordinate across
 * instances (each row once), and the retention sweep (R29) deletes only old finished rows, in batches.
 *
 * <p>Ordering is by sync points (a row's state, a counter, a skipped tick), never sleeps; waits are bounded
 * polls that detect a sync point.
 */
class ScaleIT {
    /** Stops the servers and the queue client, then drops the schema, after the class. */
    @RegisterExtension
    static final ClassResources RESOURCES = new ClassResources();

    private static final Duration READY = Duration.ofSeconds(180);
    private static final Duration SYNC = Duration.ofMinutes(5);
    private static final Pattern SAMPLE = Pattern.compile("^(\\w+)\\{([^}]*)\\}\\s+([0-9.eE+-]+)", Pattern.MULTILINE);

    private static PrivateSchema data;
    private static String prefix;
    private static ServerProcess a;
    private static ServerProcess b;
    private static ClientQueue queue;
    private static UUID ops;
    private static TestTeam team;

    @BeforeAll
    static void start() throws Exception {
        data = RESOURCES.schema();
        prefix = RESOURCES.prefix("it-scale");
        // every queue record of this class's 1 200 runs stays readable (R5 trims completed jobs to 1 000)
        List<ServerProcess> servers = RESOURCES.startReady(READY, ServerProcess.env(data, prefix, Map.of(
                "TEAMDESK_TIMERS_ENABLED", "true", "TEAMDESK_RETENTION_BATCH_SIZE", "7",
                "TEAMDESK_QUEUE_COMPLETED_MAX_COUNT", "10000")), "scale-a", "scale-b");
        a = servers.get(0);
        b = servers.get(1);
        queue = RESOURCES.add(new ClientQueue(prefix));
        ops = data.newOperator();
        team = data.newTeam();
    }

    /**
     * 200 RUNNING rows whose worker died (no ledger write for 10 min): the recovery sweeps of both instances
     * race for them; each row is reset exactly once (one {@code task.recovered} line over both logs), then
     * dispatched and run exactly once more: the dead execution was attempt 2, the new queue job's record was
     * started once and the ledger shows its attempt 1; one completion each.
     */
    @Test
    void twoInstancesRecoverEachStaleRunOnce() throws Exception {
        double recoveredBefore = metric("teamdesk_task_recovered", "");
        double completedBefore = metric("teamdesk_tasks_completed", "kind=\"EXPORT\"");
        List<UUID> ids = insert(200, "RUNNING", 2, "now() - interval '10 minutes'", "now() - interval '10 minutes'",
                "gen_random_uuid()", "'gone-worker'");
        awaitTrue(() -> count(ids, "status = 'COMPLETED'") == 200, () -> "200 recovered runs COMPLETED: " + statuses(ids));
        assertEquals(200, count(ids, "attempts = 1"), "each recovered run was claimed by a fresh queue job");
        assertEquals(200, startedOnce(ids), "each run's queue record was started exactly once");
        assertEquals(200, metric("teamdesk_task_recovered", "") - recoveredBefore, 0.0, "200 resets over both instances");
        assertEquals(200, metric("teamdesk_tasks_completed", "kind=\"EXPORT\"") - completedBefore, 0.0,
                "200 completions over both instances");
        String logs = Files.readString(a.logFile()) + Files.readString(b.logFile());
        for (UUID id : ids) {
            int lines = count(logs, "task.recovered " + TaskJobId.of(id, 0) + ":");
            assertEquals(1, lines, "recovery lines for " + id);
        }
    }

    /**
     * 1 000 due, undispatched WAITING rows: the dispatch sweeps of both instances race; 1 000 queue jobs are
     * added (the dispatch rows counted by both instances' sweeps), no duplicate is decided by reconciliation,
     * and each row runs exactly once.
     */
    @Test
    void twoInstancesDispatchEachDueRowOnce() throws Exception {
        double dispatchedBefore = metric("teamdesk_sweep_rows", "timer=\"dispatch\"");
        double reconciledBefore = metric("teamdesk_task_reconciled", "");
        List<UUID> ids = insert(1000, "WAITING", 0, "NULL", "now() - interval '1 second'", "NULL", "NULL");
        awaitTrue(() -> count(ids, "status = 'COMPLETED'") == 1000, () -> "1000 runs COMPLETED: " + statuses(ids));
        assertEquals(1000, metric("teamdesk_sweep_rows", "timer=\"dispatch\"") - dispatchedBefore, 0.0,
                "rows handed to the queue by both instances' dispatch sweeps");
        assertEquals(0, metric("teamdesk_task_reconciled", "") - reconciledBefore, 0.0, "no duplicate add was reconciled");
        assertEquals(1000, count(ids, "attempts = 1"), "each run was claimed exactly once");
        assertEquals(1000, startedOnce(ids), "one queue record per row, started exactly once");
    }

    /**
     * R29: with batch size 7, the 20 finished rows older than 90 days go in 3 batches; old WAITING and RUNNING
     * rows, a CANCELLED run whose queue record may still exist and recent finished rows stay; a notification
     * and a system event of a deleted task stay with no task; the API answers 404 for the deleted task.
     */
    @Test
    void retentionDeletesOnlyOldFinishedRowsInBatches() throws Exception {
        String token = Tokens.with(ops, Json.createObjectBuilder().add("groups", Json.createArrayBuilder().add("member")
                .add("operator")));
        Map<String, Long> skippedBefore = skipped(token, "recovery");
        for (String sweep : List.of("recovery", "retention")) {
            assertEquals(200, a.send("POST", "api/v1/admin/timers/" + sweep + "/pause", token, null).statusCode());
        }
        List<UUID> kept = new ArrayList<>();
        try {
            // sync point: a recovery tick was skipped on both instances after the pause
            awaitTrue(() -> {
                Map<String, Long> now = skipped(token, "recovery");
                return now.size() >= 2 && skippedBefore.keySet().stream().allMatch(k -> now.getOrDefault(k, 0L) > skippedBefore.get(k));
            }, () -> "a skipped recovery tick on both instances");
            String old = "now() - interval '100 days'";
            List<UUID> gone = new ArrayList<>();
            gone.addAll(insert(8, "COMPLETED", 1, "NULL", old, "NULL", "NULL"));
            gone.addAll(insert(6, "FAILED", 3, "NULL", old, "NULL", "NULL"));
            gone.addAll(insert(6, "CANCELLED", 0, "NULL", old, "NULL", "NULL"));
            UUID resultRun = UUID.randomUUID();
            data.exec("UPDATE background_task SET result_execution_id = ?, result_size = 2, result_sha256 ="
                    + " encode(sha256('\\x6869'::bytea), 'hex'), expires_at = now() + interval '1 day' WHERE id = ?",
                    resultRun, gone.get(0));
            data.exec("INSERT INTO task_result_chunk (task_id, execution_id, seq, bytes) VALUES (?, ?, 0, '\\x6869'::bytea)",
                    gone.get(0), resultRun);
            kept.addAll(insert(1, "CANCELLED", 0, old, old, "NULL", "NULL"));
            kept.addAll(insert(1, "WAITING", 0, "NULL", old, "now() + interval '1 day'", "NULL", "NULL"));
            kept.addAll(insert(1, "RUNNING", 1, old, old, "gen_random_uuid()", "'gone-worker'"));
            kept.addAll(insert(3, "COMPLETED", 1, "NULL", "now() - interval '89 days'", "NULL", "NULL"));
            UUID note = UUID.randomUUID();
            data.exec("INSERT INTO notification (id, team_id, recipient_id, task_id, message, created_at) VALUES"
                    + " (?, ?, ?, ?, 'done', now())", note, team.id(), team.owner(), gone.get(0));
            data.exec("INSERT INTO system_event (team_id, kind, task_id, created_at) VALUES (?, 'it.scale', ?, now())",
                    team.id(), gone.get(0));
            long otherFinished = data.count("SELECT count(*) FROM background_task WHERE status IN ('COMPLETED', 'FAILED',"
                    + " 'CANCELLED')") - 20 - 4;

            HttpResponse<String> run = a.send("POST", "api/v1/admin/timers/retention/run", token, null);
            assertEquals(200, run.statusCode(), run.body());
            JsonObject status = ServerProcess.json(run.body());
            assertEquals("ok", status.getString("lastOutcome"), run.body());
            assertEquals(20, status.getInt("lastHandled"), run.body());
            assertEquals(0, count(gone, "true"), "the old finished rows are deleted");
            assertEquals(0, data.count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", gone.get(0)),
                    "a deleted export's result chunks go with it");
            assertEquals(6, count(kept, "true"), "old WAITING/RUNNING, undrained CANCELLED and recent rows stay");
            assertEquals(1, count(kept, "status = 'RUNNING'"));
            assertEquals(1, count(kept, "status = 'WAITING'"));
            assertEquals(otherFinished, data.count("SELECT count(*) FROM background_task WHERE status IN ('COMPLETED',"
                    + " 'FAILED', 'CANCELLED')") - 4, "no other finished row was touched");
            assertTrue(Files.readString(a.logFile()).contains("task.retention deleted 20 finished task(s) in 3 batch(es)"),
                    "three batches of at most 7 rows");
            assertNull(data.value("SELECT task_id FROM notification WHERE id = ?", note), "the notification stays, unlinked");
            assertEquals(1, data.count("SELECT count(*) FROM system_event WHERE kind = 'it.scale' AND team_id = ? AND"
                    + " task_id IS NULL", team.id()), "the system event stays, unlinked");

            HttpResponse<String> vanished = b.send("GET", "api/v1/admin/tasks/" + gone.get(0), token, null);
            assertEquals(404, vanished.statusCode(), vanished.body());
            assertTrue(vanished.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"));
            HttpResponse<String> member = b.send("GET", "api/v1/tasks/" + gone.get(0), Tokens.of(team.owner()), null);
            assertEquals(404, member.statusCode(), member.body());
        } finally {
            // the kept WAITING/RUNNING rows would be recovered and dispatched by the other tests' sweeps
            data.exec("DELETE FROM background_task WHERE id = ANY(?::uuid[])",
                    (Object) kept.stream().map(UUID::toString).toArray(String[]::new));
            for (String sweep : List.of("recovery", "retention")) {
                a.send("POST", "api/v1/admin/timers/" + sweep + "/resume", token, null);
            }
        }
    }

    /** The connection budget of an instance lists both instances and PostgreSQL's max_connections. */
    @Test
    void capacityCountsBothInstances() throws Exception {
        String token = Tokens.with(ops, Json.createObjectBuilder().add("groups", Json.createArrayBuilder().add("member")
                .add("operator")));
        HttpResponse<String> r = a.send("GET", "api/v1/admin/capacity", token, null);
        assertEquals(200, r.statusCode(), r.body());
        JsonObject o = ServerProcess.json(r.body());
        assertEquals(2, o.getInt("instances"), r.body());
        assertEquals(data.count("SELECT current_setting('max_connections')::int"), o.getInt("maxConnections"));
        assertEquals(o.getInt("instances") * o.getInt("perInstance") + o.getInt("reserved") + 5 <= o.getInt("maxConnections"),
                o.getBoolean("fits"), r.body());
        assertEquals(403, a.send("GET", "api/v1/admin/capacity", Tokens.of(team.owner()), null).statusCode());
    }

    // ---- helpers ------------------------------------------------------------------------------

    /** Inserts {@code n} EXPORT rows of the team in one statement; @return their ids. */
    private static List<UUID> insert(int n, String status, int attempts, String dispatchedAt, String updatedAt,
            String executionId, String claimedBy) {
        return insert(n, status, attempts, dispatchedAt, updatedAt, updatedAt, executionId, claimedBy);
    }

    /** Same, with its own {@code run_at} (an SQL expression). */
    private static List<UUID> insert(int n, String status, int attempts, String dispatchedAt, String updatedAt,
            String runAt, String executionId, String claimedBy) {
        List<UUID> ids = new ArrayList<>();
        try (Connection c = data.connection(); PreparedStatement ps = c.prepareStatement("INSERT INTO background_task (id,"
                + " kind, team_id, owner_id, scope, filters, status, run, attempts, progress, execution_id, claimed_by,"
                + " dispatched_at, run_at, created_at, updated_at, cancelled_at) SELECT gen_random_uuid(), 'EXPORT', ?, ?,"
                + " 'TEAM', '{\"timeZone\":\"UTC\"}', ?, 0, ?, 0, " + executionId + ", " + claimedBy + ", " + dispatchedAt
                + ", " + runAt + ", " + updatedAt + ", " + updatedAt + ", CASE WHEN ? = 'CANCELLED' THEN " + updatedAt
                + " END FROM generate_series(1, ?) RETURNING id")) {
            ps.setObject(1, team.id());
            ps.setObject(2, team.owner());
            ps.setString(3, status);
            ps.setInt(4, attempts);
            ps.setString(5, status);
            ps.setInt(6, n);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getObject(1, UUID.class));
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return ids;
    }

    /** @return how many of the rows' queue records ({@code T-0}) exist, COMPLETED, started exactly once */
    private static int startedOnce(List<UUID> ids) {
        int n = 0;
        for (UUID id : ids) {
            n += queue.queue().getJob(TaskJobId.of(id, 0).toString())
                    .filter(j -> j.state() == JobState.COMPLETED && j.attemptsStarted() == 1).isPresent() ? 1 : 0;
        }
        return n;
    }

    private static long count(List<UUID> ids, String condition) {
        return data.count("SELECT count(*) FROM background_task WHERE id = ANY(?::uuid[]) AND " + condition,
                (Object) ids.stream().map(UUID::toString).toArray(String[]::new));
    }

    private static String statuses(List<UUID> ids) {
        StringBuilder s = new StringBuilder();
        for (String st : List.of("WAITING", "RUNNING", "COMPLETED", "FAILED")) {
            s.append(st).append('=').append(count(ids, "status = '" + st + "'")).append(' ');
        }
        return s.toString();
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }

    /** @return the counter summed over both instances and every sample whose labels contain {@code label} */
    private static double metric(String name, String label) {
        double sum = 0;
        for (ServerProcess s : List.of(a, b)) {
            try {
                Matcher m = SAMPLE.matcher(s.send("GET", "metrics", null, null).body());
                while (m.find()) {
                    if ((m.group(1).equals(name) || m.group(1).equals(name + "_total")) && m.group(2).contains(label)) {
                        sum += Double.parseDouble(m.group(3));
                    }
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        return sum;
    }

    /** @return ticks of one sweep skipped per instance */
    private static Map<String, Long> skipped(String token, String sweep) {
        Map<String, Long> out = new HashMap<>();
        try {
            for (JsonValue i : ServerProcess.json(a.send("GET", "api/v1/admin/timers", token, null).body()).getJsonArray("items")) {
                for (JsonValue timer : i.asJsonObject().getJsonArray("timers")) {
                    if (sweep.equals(timer.asJsonObject().getString("name"))) {
                        out.put(i.asJsonObject().getString("instance"), timer.asJsonObject().getJsonNumber("skipped").longValue());
                    }
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return out;
    }



    /** Bounded poll of a condition (detects a sync point; orders nothing). */
    private static void awaitTrue(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        Instant deadline = Instant.now().plus(SYNC);
        while (Instant.now().isBefore(deadline)) {
            if (condition.getAsBoolean()) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("timed out: " + what.get());
    }
}
