package com.teamdesk.tasks.it.lifecycle;

import com.teamdesk.tasks.it.export.ClientQueue;
import com.teamdesk.tasks.it.export.RowLock;
import com.teamdesk.tasks.it.support.Poll;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.queue.AddResult;
import com.teamdesk.tasks.queue.JobRecord;
import com.teamdesk.tasks.queue.JobState;
import com.teamdesk.tasks.task.engine.TaskDispatcher;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.testing.RedisPrefixCleanup;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * T4 and R22 on a real server process (not Arquillian): the production WAR in {@code java -jar
 * payara-micro.jar} started as {@code ./teamdesk up} and the Docker image start it, stopped with
 * SIGTERM as an orchestrator does it (or killed with SIGKILL, a crash).
 *
 * <ul>
 * <li>heartbeat: {@code /health} reports {@code worker: UP <id>} and the Redis key
 * {@code <prefix>:tasks:workers:<id>} lives with a TTL;</li>
 * <li>SIGTERM drain: an export in flight that still needs 5 s of its 30 s grace finishes
 * (COMPLETED in the ledger, completed in the queue), a job waiting behind it is not taken, the
 * process exits, the heartbeat key is gone;</li>
 * <li>deadline exit: executions longer than the grace period are cut off, the process exits at
 * the deadline and the rows stay RUNNING under the dead execution's lease;</li>
 * <li>healing: runs cut off that way are healed by a second server's EJB timers (R19 stall
 * recovery, then R18/R20 by the queue's record): a run whose queue record was lost is dispatched
 * again and completes, one whose record the queue failed (stalled over the limit) becomes FAILED.
 * The cut-off state is produced by SIGKILL, which leaves exactly what a deadline exit leaves
 * (RUNNING rows, active jobs whose locks expire) without depending on the drain.</li>
 * </ul>
 *
 * <h2>How "in flight" is made deterministic</h2>
 * No test hook exists in a production process, so the test holds PostgreSQL row locks on its own
 * task rows ({@link RowLock}): the test dispatches the job itself while holding the row, so the
 * worker's claim (R7) waits; a second lock is queued behind the claim, and when the first is
 * released PostgreSQL grants the row to the claim (which commits RUNNING) and then to the second
 * lock, on which the execution's first progress write (R8) waits. At that point the execution is
 * provably in flight, holds the lease and RUNNING is committed, and it continues only when the test
 * releases the lock (or never). Waits are bounded polls of {@code pg_stat_activity}, Redis or the
 * process that detect a sync point. The one timed hold — the drain test keeps the export blocked
 * for 5 s after SIGTERM — is the job's remaining work, not an ordering: with a 30 s grace a correct
 * drain lets it finish whatever the timing.
 *
 * <p>The servers run their EJB timers for up to minutes, and the sweeps are server-wide; so the
 * servers and the test's rows live in a private PostgreSQL schema ({@link PrivateSchema}): no
 * other server on the shared test database can take these rows, and these servers take no other's.
 *
 * <p>Payara Micro writes no log line after SIGTERM (its handlers are closed while the application
 * stops), so nothing here reads the server's log: the drain is observed in PostgreSQL and Redis.
 */
class LifecycleIT {
    /** Deletes the Redis keys of this class's prefixes after the class, when its servers have stopped. */
    @RegisterExtension
    static final RedisPrefixCleanup REDIS = new RedisPrefixCleanup();

    private static final Logger LOG = Logger.getLogger(LifecycleIT.class.getName());
    private static final Duration READY = Duration.ofSeconds(180);
    private static final Duration SYNC = Duration.ofSeconds(60);
    private static final int TICKETS = 200;
    /** What the in-flight export of the drain test still has to do after SIGTERM. */
    private static final Duration REMAINING_WORK = Duration.ofSeconds(5);
    /** Grace period of the deadline test's server. */
    private static final Duration DEADLINE_GRACE = Duration.ofSeconds(8);

    /** This class's schema, created before its tests and dropped after them. */
    @RegisterExtension
    static final PrivateSchema data = PrivateSchema.perClass();

    /**
     * Heartbeat and SIGTERM drain (R22): the worker publishes a heartbeat that /health reports;
     * on SIGTERM it stops taking jobs, lets the in-flight export finish (its progress and result
     * writes still reach PostgreSQL, its completion reaches Redis), deletes its heartbeat, and the
     * process exits well before the 30 s grace deadline.
     */
    @Test
    void heartbeatThenSigtermDrainsTheInFlightExport() throws Exception {
        String prefix = prefix();
        TestTeam t = data.newTeam();
        tickets(t);
        UUID inFlight = dispatchedRow(t);
        UUID behind = dispatchedRow(t);
        RowLock.Queued progressGate = null;
        try (ClientQueue q = new ClientQueue(prefix);
                ServerProcess server = ServerProcess.start("drain", env(prefix, Map.of(
                        "TEAMDESK_WORKER_CONCURRENCY", "1",
                        "TEAMDESK_WORKER_SHUTDOWN_GRACE_MS", "30000")))) {
            JsonObject health = server.awaitReady(READY);
            assertEquals("UP", health.getString("status"));
            JsonObject checks = ServerProcess.checkData(health);
            String worker = checks.getString("worker");
            assertTrue(worker.startsWith("UP "), "health reports the worker: " + health);
            String workerId = worker.substring(3);
            assertEquals("UP", checks.getString("database"));
            assertEquals("UP", checks.getString("redis"));
            String heartbeat = q.queue().keys().worker(workerId);
            assertEquals(heartbeat, prefix + ":tasks:workers:" + workerId);
            assertTrue(q.redis().exists(heartbeat), "heartbeat key " + heartbeat);
            long ttl = q.redis().pttl(heartbeat);
            assertTrue(ttl > 0 && ttl <= 15_000, "the heartbeat expires on its own (TTL " + ttl + " ms)");
            assertTrue(q.queue().liveWorkers().contains(workerId));

            progressGate = holdAfterClaim(q, inFlight);
            assertEquals(JobState.ACTIVE, job(q, inFlight).state());
            assertEquals(AddResult.ADDED, q.addTaskJob(behind, 0));
            assertEquals(JobState.WAITING, job(q, behind).state(), "the only slot is busy");

            Instant sent = server.sigterm();
            Instant workDone = sent.plus(REMAINING_WORK);
            while (Instant.now().isBefore(workDone) && server.process().isAlive()) {
                Thread.sleep(50); // the export's remaining work (see the class comment)
            }
            assertTrue(server.process().isAlive(), () -> "the server exited within "
                    + Duration.between(sent, Instant.now()).toMillis() + " ms after SIGTERM although its export"
                    + " was in flight and the grace period is 30 s; ledger: " + row(inFlight) + "; queue: "
                    + q.queue().getJob(TaskJobId.of(inFlight, 0).toString()));
            progressGate.close();
            assertTrue(server.awaitExit(SYNC), "the process exits after the drain");
            Duration took = Duration.between(sent, server.exitedAt());
            LOG.info(() -> "drain: exit " + server.process().exitValue() + " after " + took.toMillis() + " ms");
            assertTrue(took.compareTo(Duration.ofSeconds(30)) < 0, "drained before the 30 s grace deadline: " + took);

            assertEquals("COMPLETED 100 null " + TICKETS + " tickets exported", row(inFlight));
            assertTrue(data.count("SELECT result_size FROM background_task WHERE id = ?", inFlight) > 0);
            JobRecord done = job(q, inFlight);
            assertEquals(JobState.COMPLETED, done.state(), "the completion reached the queue during the drain");
            assertEquals(100, done.progress());

            JobRecord notTaken = job(q, behind);
            assertEquals(JobState.WAITING, notTaken.state(), "a closing worker takes no new job");
            assertEquals(0, notTaken.attemptsStarted());
            assertEquals("WAITING", data.value("SELECT status FROM background_task WHERE id = ?", behind));
            assertFalse(q.redis().exists(heartbeat), "the heartbeat is deleted on exit");
            assertFalse(q.queue().liveWorkers().contains(workerId));
        } finally {
            if (progressGate != null) {
                progressGate.close();
            }
        }
    }

    /**
     * Deadline exit (R22): two executions that never finish (their progress writes wait on the
     * test's locks) hold the worker past its 8 s grace period. The process exits at the deadline,
     * not before, and the rows stay RUNNING under the dead execution's lease: left to stall
     * recovery. The heartbeat is gone. The statements the dead process left waiting are
     * terminated before the locks are released, so nothing of it can write afterwards.
     */
    @Test
    void deadlineExitLeavesTheRowsRunningForStallRecovery() throws Exception {
        String prefix = prefix();
        TestTeam t = data.newTeam();
        tickets(t);
        UUID a = dispatchedRow(t);
        UUID b = dispatchedRow(t);
        List<RowLock.Queued> gates = new ArrayList<>();
        try (ClientQueue q = new ClientQueue(prefix);
                ServerProcess server = ServerProcess.start("deadline", env(prefix, Map.of(
                        "TEAMDESK_WORKER_CONCURRENCY", "2",
                        // both slots hold an export: none reserved for reminders (R42's default is 1 of 2)
                        "TEAMDESK_WORKER_RESERVED_SLOTS", "0",
                        "TEAMDESK_WORKER_SHUTDOWN_GRACE_MS", Long.toString(DEADLINE_GRACE.toMillis()))))) {
            String workerId = ServerProcess.checkData(server.awaitReady(READY)).getString("worker").substring(3);
            Map<UUID, String> before = new HashMap<>();
            for (UUID id : List.of(a, b)) {
                gates.add(holdAfterClaim(q, id));
                before.put(id, row(id) + " lease " + lease(id));
            }
            Instant sent = server.sigterm();
            assertTrue(server.awaitExit(DEADLINE_GRACE.plus(SYNC)), "the process exits even with executions stuck");
            Duration took = Duration.between(sent, server.exitedAt());
            LOG.info(() -> "deadline: exit " + server.process().exitValue() + " after " + took.toMillis() + " ms");
            assertTrue(took.compareTo(DEADLINE_GRACE) >= 0, () -> "the worker must wait for its in-flight jobs until the "
                    + DEADLINE_GRACE.toMillis() + " ms grace deadline, but the process exited after " + took.toMillis()
                    + " ms; ledger: " + row(a) + " / " + row(b) + "; queue: "
                    + q.queue().getJob(TaskJobId.of(a, 0).toString()) + " / "
                    + q.queue().getJob(TaskJobId.of(b, 0).toString()));
            assertFalse(q.redis().exists(q.queue().keys().worker(workerId)), "heartbeat deleted on exit");
            for (RowLock.Queued g : gates) {
                assertEquals(1, g.terminateWaiters(), "the cut-off progress write was still waiting");
                g.close();
            }
            for (UUID id : List.of(a, b)) {
                assertEquals(before.get(id), row(id) + " lease " + lease(id), "cut off: RUNNING under the dead lease");
                assertFalse(job(q, id).state() == JobState.COMPLETED || job(q, id).state() == JobState.FAILED,
                        "not finished in the queue either: " + job(q, id));
            }
        } finally {
            for (RowLock.Queued g : gates) {
                g.close();
            }
        }
    }

    /**
     * Healing by recovery (R19, R20, R18). Two exports are in flight when their server is killed
     * (SIGKILL: the state a deadline exit leaves, see above): both rows stay RUNNING under a dead
     * lease and the queue still shows both jobs active. The queue then "loses" one job (its record
     * is removed), and a second server on the same queue starts with timers on and
     * {@code maxStalledCount=0}, so its stalled check fails the other job in the queue. Once the
     * rows are older than the 2-minute threshold (aged in the database after the queue settled),
     * the second server's timers alone make both converge: RUNNING → WAITING (R19), then the lost
     * run is dispatched again as the same job id and completes (R18), and the failed one is recorded
     * FAILED with the fixed message (R20).
     */
    @Test
    void cutOffRunsAreHealedByASecondServersSweeps() throws Exception {
        String prefix = prefix();
        TestTeam t = data.newTeam();
        tickets(t);
        UUID lost = dispatchedRow(t);
        UUID stalled = dispatchedRow(t);
        List<RowLock.Queued> gates = new ArrayList<>();
        try (ClientQueue q = new ClientQueue(prefix)) {
            Map<UUID, String> leases = new HashMap<>();
            try (ServerProcess first = ServerProcess.start("crash", env(prefix, Map.of(
                    "TEAMDESK_WORKER_CONCURRENCY", "2",
                        // both slots hold an export: none reserved for reminders (R42's default is 1 of 2)
                        "TEAMDESK_WORKER_RESERVED_SLOTS", "0",
                    "TEAMDESK_WORKER_LOCK_DURATION_MS", "2000",
                    "TEAMDESK_WORKER_LOCK_RENEW_MS", "500",
                    "TEAMDESK_WORKER_STALLED_INTERVAL_MS", "1000")))) {
                first.awaitReady(READY);
                for (UUID id : List.of(lost, stalled)) {
                    gates.add(holdAfterClaim(q, id));
                    leases.put(id, lease(id));
                }
                first.process().destroyForcibly();
                assertTrue(first.awaitExit(SYNC), "SIGKILL");
            }
            for (RowLock.Queued g : gates) {
                // The dead process's statements still wait on the test's locks: end them first, so
                // nothing of the first server can write after its death.
                assertEquals(1, g.terminateWaiters(), "the cut-off progress write was still waiting");
                g.close();
            }
            // Pin the rows "recently written" until the queue has settled, so that no recovery
            // sweep (of this test or of any server on the shared database) acts on them early.
            assertEquals(2, data.exec("UPDATE background_task SET updated_at = now() + interval '10 minutes'"
                    + " WHERE id IN (?, ?) AND status = 'RUNNING'", lost, stalled));
            for (UUID id : List.of(lost, stalled)) {
                assertEquals("RUNNING", data.value("SELECT status FROM background_task WHERE id = ?", id));
                assertEquals(leases.get(id), lease(id));
                assertEquals(JobState.ACTIVE, job(q, id).state(), "the queue still thinks it runs");
            }

            // The queue loses one job (e.g. Redis restored from an old snapshot); its lock has expired.
            String lostJob = TaskJobId.of(lost, 0).toString();
            awaitTrue(() -> q.queue().remove(lostJob), "remove " + lostJob + " once its lock expired");
            assertTrue(q.queue().getJob(lostJob).isEmpty());

            try (ServerProcess second = ServerProcess.start("heal", env(prefix, Map.of(
                    "TEAMDESK_TIMERS_ENABLED", "true",
                    "TEAMDESK_WORKER_MAX_STALLED_COUNT", "0",
                    "TEAMDESK_WORKER_STALLED_INTERVAL_MS", "1000")))) {
                second.awaitReady(READY);
                awaitTrue(() -> job(q, stalled).state() == JobState.FAILED, "the stalled check fails " + stalled);
                assertTrue(job(q, stalled).exhausted());
                assertEquals("RUNNING", data.value("SELECT status FROM background_task WHERE id = ?", stalled),
                        "the queue's listeners never write the ledger (R21)");
                assertEquals("RUNNING", data.value("SELECT status FROM background_task WHERE id = ?", lost));

                // Two minutes pass for these two rows only.
                assertEquals(2, data.exec("UPDATE background_task SET updated_at = now() - interval '10 minutes'"
                        + " WHERE id IN (?, ?) AND status = 'RUNNING'", lost, stalled));
                awaitTrue(() -> "FAILED".equals(data.value("SELECT status FROM background_task WHERE id = ?", stalled))
                        && "COMPLETED".equals(data.value("SELECT status FROM background_task WHERE id = ?", lost)),
                        "both runs converge");
                assertEquals(TaskDispatcher.QUEUE_FAILED_MESSAGE,
                        data.value("SELECT last_error FROM background_task WHERE id = ?", stalled));
                assertNull(lease(stalled));
                assertEquals(0L, data.count("SELECT run FROM background_task WHERE id = ?", stalled), "same run");

                assertEquals("COMPLETED 100 null " + TICKETS + " tickets exported", row(lost));
                // R43: the killed server's executions were closed by the recovery's statement as STALLED, with
                // the progress they had reached; the lost run's new execution has its own entry. The queue's
                // failure of the other run (R20) ended no execution, so it added none.
                assertEquals("STALLED", outcomes(stalled));
                assertEquals("STALLED,COMPLETED", outcomes(lost));
                for (UUID id : List.of(lost, stalled)) {
                    assertEquals(leases.get(id), data.value("SELECT execution_id::text FROM task_execution"
                            + " WHERE task_id = ? AND outcome = 'STALLED' AND ended_at IS NOT NULL", id));
                }
                assertEquals(0L, data.count("SELECT run FROM background_task WHERE id = ?", lost), "same run, R1");
                assertEquals(1L, data.count("SELECT attempts FROM background_task WHERE id = ?", lost));
                // R12: the ledger commits COMPLETED first, then the worker tells the queue.
                awaitTrue(() -> job(q, lost).state() == JobState.COMPLETED, "dispatched again as the same job id"
                        + " and run, completed in the queue");
                JobRecord again = job(q, lost);
                assertEquals(1, again.attemptsStarted(), "a fresh job record");
                assertEquals(0, again.stalledCounter());
                second.sigterm();
                assertTrue(second.awaitExit(SYNC), "the healing server stops");
            }
        } finally {
            for (RowLock.Queued g : gates) {
                g.close();
            }
        }
    }

    // ------------------------------------------------------------------------------------------

    /**
     * Dispatches run 0 of {@code taskId} while holding its row, waits for the worker's claim to
     * block, then hands the row over: the claim commits RUNNING, and the execution's first
     * progress write blocks on the returned lock.
     */
    private RowLock.Queued holdAfterClaim(ClientQueue q, UUID taskId) throws Exception {
        RowLock.Queued second;
        try (RowLock first = RowLock.on(data::connection, taskId)) {
            assertEquals(AddResult.ADDED, q.addTaskJob(taskId, 0));
            first.awaitBlocked(RowLock.CLAIM, SYNC);
            second = RowLock.queueBehind(data::connection, taskId, SYNC);
        }
        second.awaitHeld(SYNC);
        second.awaitBlocked(RowLock.PROGRESS, SYNC);
        assertEquals("RUNNING", data.value("SELECT status FROM background_task WHERE id = ?", taskId));
        assertNotNull(data.value("SELECT execution_id FROM background_task WHERE id = ?", taskId));
        return second;
    }

    /** @return "status progress execution_id result_summary" of a task row */
    private String row(UUID id) {
        return (String) data.value("SELECT status || ' ' || progress || ' ' || coalesce(execution_id::text, 'null') || ' '"
                + " || coalesce(result_summary, 'null') FROM background_task WHERE id = ?", id);
    }

    /** @return the row's execution id (lease), or null */
    /** The outcomes of a task's executions (R43), oldest first, comma-separated. */
    private String outcomes(UUID id) {
        return (String) data.value("SELECT string_agg(coalesce(outcome, 'OPEN'), ',' ORDER BY claimed_at)"
                + " FROM task_execution WHERE task_id = ?", id);
    }

    private String lease(UUID id) {
        return (String) data.value("SELECT execution_id::text FROM background_task WHERE id = ?", id);
    }

    /**
     * Settings of a test server: the private schema, its own Redis prefix, timers off (unless
     * overridden), export batches of 7.
     */
    private static Map<String, String> env(String prefix, Map<String, String> extra) {
        Map<String, String> env = ServerProcess.env(data, prefix,
                Map.of("TEAMDESK_TIMERS_ENABLED", "false", "TEAMDESK_EXPORT_BATCH_SIZE", "7"));
        env.putAll(extra);
        return env;
    }

    private static String prefix() {
        return REDIS.create("it-life");
    }

    private void tickets(TestTeam t) {
        data.exec("INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at,"
                + " updated_at, version) SELECT gen_random_uuid(), ?, 'Ticket ' || g, 'Body, \"' || g || '\"', 'OPEN',"
                + " 'NORMAL', ?, ?, now() - make_interval(secs => g), now() - make_interval(secs => g), 1"
                + " FROM generate_series(1, " + TICKETS + ") g", t.id(), t.staff(), t.customer());
    }

    /** A TEAM export of the staff member, WAITING and already marked dispatched (no dispatcher touches it). */
    private UUID dispatchedRow(TestTeam t) {
        UUID id = UUID.randomUUID();
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        data.exec("INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,"
                + " progress, dispatched_at, run_at, created_at, updated_at) VALUES (?, 'EXPORT', ?, ?, 'TEAM',"
                + " '{\"timeZone\":\"UTC\"}'::jsonb, 'WAITING', 0, 0, 0, ?, ?, ?, ?)", id, t.id(), t.staff(), now, now,
                now, now);
        return id;
    }

    private static JobRecord job(ClientQueue q, UUID taskId) {
        return q.queue().getJob(TaskJobId.of(taskId, 0).toString())
                .orElseThrow(() -> new AssertionError("no job " + taskId + "-0"));
    }

    /** Bounded poll of a condition (detects completion; orders nothing). */
    private static void awaitTrue(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        Poll.until(condition, Duration.ofSeconds(120), "timed out: " + what);
    }
}
