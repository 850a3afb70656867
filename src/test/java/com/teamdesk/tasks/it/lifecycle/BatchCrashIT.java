package com.teamdesk.tasks.it.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.export.RowLock;
import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.Tokens;
import com.teamdesk.tasks.task.report.BatchReportTransaction;
import com.teamdesk.tasks.testing.RedisPrefixCleanup;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 52 (R52) on real server processes: a batch's completion is created exactly once, never zero times and never
 * twice, when its last child's transaction dies with its server (SIGKILL) and when two servers end its last two
 * children at the same moment.
 *
 * <p>"At the same moment" and "inside the last child's transaction" are made deterministic by a row lock the test
 * holds on the batch's row ({@link RowLock}): the statement that ends a child moves its batch's count (V18's
 * trigger), so a worker that ends a child waits on that lock inside its final statement, observed by bounded polls
 * of {@code pg_stat_activity}. The children are exports (no team lock, so two can end at once), released together by
 * cancelling the scheduled task they wait for ({@code afterFailure: RUN}).
 *
 * <p>Three boots: A (killed), then B and C together (B's timers recover A's child; then B and C race).
 */
class BatchCrashIT {
    /** Deletes the Redis keys of this class's prefixes after the class, when its servers have stopped. */
    @RegisterExtension
    static final RedisPrefixCleanup REDIS = new RedisPrefixCleanup();

    /** This class's schema, created before its tests and dropped after them. */
    @RegisterExtension
    static final PrivateSchema data = PrivateSchema.perClass();

    private static final Duration READY = Duration.ofSeconds(180);
    private static final Duration SYNC = Duration.ofSeconds(60);
    private static final Duration CONVERGE = Duration.ofSeconds(120);

    @Test
    @SuppressWarnings("try") // server c is held up for the block: a second server beside b, never called directly
    void theCompletionIsCreatedOnceAfterAKillAndWhenTwoServersEndTheLastTwoChildrenAtOnce() throws Exception {
        String prefix = REDIS.create("it-batch");
        TestTeam t = data.newTeam();
        String token = Tokens.of(t.staff());
        String killed;
        String raced;
        List<String> racers;
        try (ServerProcess a = ServerProcess.start("batch-a", env(prefix, "false"))) {
            a.awaitReady(READY);
            Api api = Api.at(a.root().toURL());
            String gate = gate(api, t, token);
            killed = exportBatch(api, t, token, gate, 1);
            try (RowLock batchLock = RowLock.onRow(data::connection, "task_batch", UUID.fromString(killed), "FOR UPDATE")) {
                assertEquals(200, api.post("tasks/" + gate + "/cancel", token, "").status());
                awaitBlocked(batchLock, 1); // the child's final statement waits for the batch's count
                a.process().destroyForcibly();
                assertTrue(a.awaitExit(SYNC), "SIGKILL");
                assertEquals(1, batchLock.terminateWaiters(), "the dead server's final statement was still waiting");
            }
            assertEquals(0, data.count("SELECT completed + failed + cancelled FROM task_batch WHERE id = ?::uuid", killed),
                    "the killed transaction moved no count");
        }
        List<ServerProcess> bc = ServerProcess.startReady(READY, env(prefix, "true"), "batch-b", "batch-c");
        try (ServerProcess b = bc.get(0); ServerProcess c = bc.get(1)) {
            Api api = Api.at(b.root().toURL());
            awaitReported(killed); // B's recovery ran the child again (R19 or the queue's stalled check)

            String gate = gate(api, t, token);
            raced = exportBatch(api, t, token, gate, 2);
            try (RowLock batchLock = RowLock.onRow(data::connection, "task_batch", UUID.fromString(raced), "FOR UPDATE")) {
                assertEquals(200, api.post("tasks/" + gate + "/cancel", token, "").status());
                awaitBlocked(batchLock, 2); // both children inside their final statements at once
                racers = workersOfRunningChildren(raced);
            }
            awaitReported(raced);
        }
        assertEquals(2, racers.size(), "two executions were in their final statements: " + racers);
        assertNotEquals(racers.get(0), racers.get(1), "on two workers (one slot each)");
        for (String batch : List.of(killed, raced)) {
            assertEquals(1, data.count("SELECT count(*) FROM background_task WHERE completes_batch = ?::uuid", batch),
                    "one completion of " + batch);
            assertEquals(1, data.count("SELECT count(*) FROM notification n JOIN background_task r ON r.id = n.task_id"
                    + " WHERE r.completes_batch = ?::uuid", batch), "one report of " + batch);
            assertEquals(1, data.count("SELECT count(*) FROM system_event e JOIN background_task r ON r.id = e.task_id"
                    + " WHERE r.completes_batch = ?::uuid AND e.kind = ?", batch, BatchReportTransaction.EVENT_KIND));
            assertEquals(data.count("SELECT size FROM task_batch WHERE id = ?::uuid", batch),
                    data.count("SELECT completed FROM task_batch WHERE id = ?::uuid", batch), "every child counted once");
        }
    }

    /** @return a reminder an hour ahead that the batch's children wait for (the test cancels it to release them) */
    private static String gate(Api api, TestTeam t, String token) {
        UUID ticket = UUID.randomUUID();
        data.exec("INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at,"
                + " updated_at, version) VALUES (?, ?, 'Gate', 'Gate', 'OPEN', 'NORMAL', ?, ?, now(), now(), 1)",
                ticket, t.id(), t.staff(), t.customer());
        String at = Instant.now().plus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS).toString();
        Reply r = api.post("teams/" + t.id() + "/tasks", token, "{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket
                + "\",\"message\":\"gate\",\"runAt\":\"" + at + "\"}");
        assertEquals(202, r.status(), r.toString());
        return r.json().getString("id");
    }

    /** @return a batch of {@code n} exports waiting for {@code gate} (run anyway), with a report as its completion */
    private static String exportBatch(Api api, TestTeam t, String token, String gate, int n) {
        List<String> items = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            items.add("{\"kind\":\"EXPORT\",\"after\":[\"" + gate + "\"],\"afterFailure\":\"RUN\"}");
        }
        Reply r = api.post("teams/" + t.id() + "/batches", token, "{\"items\":[" + String.join(",", items) + "],"
                + "\"completion\":{\"kind\":\"BATCH_REPORT\"}}");
        assertEquals(202, r.status(), r.toString());
        return r.json().getString("id");
    }

    /**
     * Bounded poll until {@code count} backends wait on the test's lock, directly or behind another waiter (detects
     * the sync point; orders nothing).
     */
    private static void awaitBlocked(RowLock lock, int count) throws Exception {
        Instant deadline = Instant.now().plus(SYNC);
        while (Instant.now().isBefore(deadline)) {
            // the second waiter queues behind the first (the row's tuple lock), so it is counted through it
            if (data.count("WITH RECURSIVE b(pid) AS (SELECT pid FROM pg_stat_activity WHERE ? = ANY (pg_blocking_pids(pid))"
                    + " UNION SELECT a.pid FROM pg_stat_activity a JOIN b ON b.pid = ANY (pg_blocking_pids(a.pid)))"
                    + " SELECT count(*) FROM b", lock.pid()) >= count) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError(count + " final statements never waited on the batch's row within " + SYNC);
    }

    /** @return the workers of the batch's children's open executions */
    private static List<String> workersOfRunningChildren(String batch) throws Exception {
        List<String> workers = new ArrayList<>();
        try (Connection c = data.connection(); PreparedStatement ps = c.prepareStatement("SELECT e.worker FROM"
                + " task_execution e JOIN background_task t ON t.id = e.task_id WHERE t.batch_id = ?::uuid"
                + " AND e.ended_at IS NULL ORDER BY e.worker")) {
            ps.setString(1, batch);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    workers.add(rs.getString(1));
                }
            }
        }
        return workers;
    }

    /** Bounded poll until the batch's report task has COMPLETED (detects the end; orders nothing). */
    private static void awaitReported(String batch) throws InterruptedException {
        Instant deadline = Instant.now().plus(CONVERGE);
        while (Instant.now().isBefore(deadline)) {
            if (data.count("SELECT count(*) FROM background_task WHERE completes_batch = ?::uuid AND status = 'COMPLETED'",
                    batch) > 0) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("batch " + batch + " has no COMPLETED report within " + CONVERGE + ": "
                + data.value("SELECT row_to_json(b)::text FROM task_batch b WHERE id = ?::uuid", batch));
    }

    /**
     * Settings of a test server: the private schema, the class's Redis prefix, one worker slot (so that two children
     * waiting at once are on two servers), a 2 s queue lock and a 1 s stalled check, a 5 s stall threshold.
     */
    private static Map<String, String> env(String prefix, String timers) {
        Map<String, String> env = ServerProcess.env(data, prefix, Map.of());
        env.put("TEAMDESK_TIMERS_ENABLED", timers);
        env.put("TEAMDESK_WORKER_CONCURRENCY", "1");
        env.put("TEAMDESK_WORKER_LOCK_DURATION_MS", "2000");
        env.put("TEAMDESK_WORKER_LOCK_RENEW_MS", "500");
        env.put("TEAMDESK_WORKER_STALLED_INTERVAL_MS", "1000");
        env.put("TEAMDESK_WORKER_SHUTDOWN_GRACE_MS", "5000");
        env.put("TEAMDESK_RECOVERY_STALL_THRESHOLD_MS", "5000");
        return env;
    }
}
