package com.teamdesk.tasks.it.export;

import com.teamdesk.tasks.it.TestClock;
import com.teamdesk.tasks.it.engine.RecordingJob;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.Sweeps;
import com.teamdesk.tasks.it.support.TaskRequests;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.TestData;
import com.teamdesk.tasks.it.support.TestDeployments;
import com.teamdesk.tasks.it.support.Tokens;
import com.teamdesk.tasks.platform.RedisResources;
import com.teamdesk.tasks.queue.Backoff;
import com.teamdesk.tasks.queue.JobOptions;
import com.teamdesk.tasks.queue.JobRecord;
import com.teamdesk.tasks.queue.JobState;
import com.teamdesk.tasks.queue.Queue;
import com.teamdesk.tasks.queue.UnrecoverableJobException;
import com.teamdesk.tasks.queue.Worker;
import com.teamdesk.tasks.queue.WorkerOptions;
import com.teamdesk.tasks.task.engine.FailureCause;
import com.teamdesk.tasks.task.engine.TaskProcessor;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.service.TaskService;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.Lease;
import com.teamdesk.tasks.task.spi.LeaseLost;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskStatus;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.naming.InitialContext;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dispatch, recovery, reconciliation and purge sweeps (R18-R20, R13) in the server, against
 * real PostgreSQL and this deployment's own Redis queue. The worker and the timers are off: every
 * sweep runs because the test calls the timer's body ({@code TaskDispatcher#dispatchDue},
 * {@code TaskRecovery}), on container-managed threads where two must run at once.
 *
 * <h2>Living on a shared database</h2>
 * The sweeps are server-wide by design (no team filter), and other servers with timers on may run
 * against the same test database. So that no other server touches this test's rows and this
 * test's sweeps reach its own rows first:
 * <ul>
 * <li>rows are created with {@code run_at} a day ahead (not due for anybody) and made due, one
 * statement, right before the sweep under test; due rows get {@code run_at} in 2001 and aged rows
 * {@code updated_at} in 2001, so they sort first in the sweeps' {@code ORDER BY ... LIMIT};</li>
 * <li>assertions are about this test's rows and this deployment's queue (emptied before each
 * test); counts returned by a sweep may include other rows and are only used in equations that
 * hold for them too;</li>
 * <li>after each test the team's unfinished rows are marked FAILED, so no sweep picks them later.</li>
 * </ul>
 */
@ExtendWith(ArquillianExtension.class)
@Execution(ExecutionMode.SAME_THREAD)
class SweepsIT {
    private static final Logger LOG = Logger.getLogger(SweepsIT.class.getName());
    private static final Instant Y2001 = Instant.parse("2001-01-01T00:00:00Z");
    private static final int WAIT_S = 60;

    @Deployment
    static WebArchive deployment() {
        return TestDeployments.app(Map.of("teamdesk.worker.enabled", "false", "teamdesk.timers.enabled", "false"),
                SweepsIT.class, TestClock.class, RecordingJob.class);
    }

    @Inject
    Sweeps sweeps;
    @Inject
    JdbcTaskLedger ledger;
    @Inject
    Queue queue;
    @Inject
    RedisResources redis;
    @Inject
    TaskService tasks;
    @Inject
    TaskProcessor processor;

    @ArquillianResource
    URL url;

    final TestData data = TestData.inServer();
    TestTeam t;

    @BeforeEach
    void setUp() {
        queue.obliterate(); // this deployment's own prefix; no worker runs here
        TestClock.reset();
        TestClock.uniqueReadings();
        t = data.newTeam();
    }

    @AfterEach
    void retireRows() {
        if (t != null) {
            data.exec("UPDATE background_task SET status = 'FAILED', execution_id = NULL, last_error = 'SweepsIT cleanup'"
                    + " WHERE team_id = ? AND status IN ('WAITING', 'RUNNING')", t.id());
        }
    }

    // ------------------------------------------------------------------------------------------
    // R18 dispatch
    // ------------------------------------------------------------------------------------------

    /**
     * R18: a created WAITING task is dispatched exactly once when two dispatch sweeps start on one
     * barrier (repeated, to give the race many chances), and when the creation-time dispatch of
     * that task races a sweep.
     */
    @Test
    void aCreatedTaskIsDispatchedOnceByTwoConcurrentSweeps() throws Exception {
        for (int i = 0; i < 12; i++) {
            UUID id = waitingRow(null);
            makeDue(id);
            boolean creationRace = i % 3 == 2;
            int[] n = race(() -> sweeps.dispatchDue(200), creationRace ? () -> {
                sweeps.dispatchNow(id);
                return -1;
            } : () -> sweeps.dispatchDue(200));
            String round = "round " + i + (creationRace ? " (dispatchNow vs sweep)" : " (sweep vs sweep)") + " "
                    + Arrays.toString(n);
            BackgroundTask row = ledger.find(id).orElseThrow();
            assertEquals(TaskStatus.WAITING, row.status(), round);
            assertNotNull(row.dispatchedAt(), round);
            List<Instant> a = TestClock.issuedTo("A");
            List<Instant> b = TestClock.issuedTo("B");
            assertTrue(a.contains(row.dispatchedAt()) || b.contains(row.dispatchedAt()),
                    round + ": dispatched_at is one sweep's now");
            assertEqualsRowsMarkedBy(n[0], a, round + ": sweep A");
            if (!creationRace) {
                assertEqualsRowsMarkedBy(n[1], b, round + ": sweep B");
            } else {
                assertTrue(rowsMarkedBy(b) <= 1, round + ": dispatchNow handles at most its task");
            }
            assertSingleWaitingJob(id, round);
            TestClock.forget();
        }
        assertEquals(12L, data.count("SELECT count(*) FROM background_task WHERE team_id = ? AND dispatched_at IS NOT"
                + " NULL", t.id()));
    }

    /**
     * R18 at volume: 50 due tasks, two sweeps looping like the timer (batches of 10) start on one
     * barrier. Every task gets exactly one job, and no row is handed over twice: the rows carrying
     * each sweep's instants number exactly what that sweep reported (see {@link TestClock}).
     */
    @Test
    void fiftyDueTasksAreEachHandedOverOnceByTwoConcurrentSweeps() throws Exception {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            ids.add(waitingRow(null));
        }
        assertEquals(50, data.exec("UPDATE background_task SET run_at = ? WHERE team_id = ? AND status = 'WAITING'"
                + " AND dispatched_at IS NULL", utc(Y2001), t.id()));
        int[] n = race(() -> timerLoop(10), () -> timerLoop(10));
        LOG.info(() -> "two sweeps handed over " + Arrays.toString(n));
        List<Instant> a = TestClock.issuedTo("A");
        List<Instant> b = TestClock.issuedTo("B");
        assertEqualsRowsMarkedBy(n[0], a, "sweep A");
        assertEqualsRowsMarkedBy(n[1], b, "sweep B");
        for (UUID id : ids) {
            BackgroundTask row = ledger.find(id).orElseThrow();
            assertEquals(TaskStatus.WAITING, row.status());
            assertTrue(a.contains(row.dispatchedAt()) || b.contains(row.dispatchedAt()), "dispatched by A or B: " + id);
            assertSingleWaitingJob(id, "task " + id);
        }
        assertEquals((long) n[0] + n[1], queue.counts().get(JobState.WAITING),
                "every handed-over row has exactly one waiting job in the queue");
        assertTrue(n[0] + n[1] >= 50);
    }

    /**
     * A sweep that fails leaves the rows as they were (R18, R19): the sweep is one transaction, so
     * a failure at a later row rolls back the marks of the earlier ones. The failure is a job record
     * this queue cannot read (a hash without {@code state}) planted under the second task's job id.
     * Redis is not part of the transaction: the first task's job stays added, and the next sweep
     * finds it (R2 duplicate, R20 waiting) instead of adding a second one.
     */
    @Test
    void aSweepThatFailsLeavesTheRowsAsTheyWere() throws Exception {
        // Dispatch sweep.
        UUID first = waitingRow(null);
        UUID second = waitingRow(null);
        data.exec("UPDATE background_task SET run_at = CASE WHEN id = ? THEN ?::timestamptz ELSE ?::timestamptz END"
                + " WHERE id IN (?, ?)", first, utc(Y2001), utc(Y2001.plusSeconds(1)), first, second);
        String poisoned = queue.keys().job(TaskJobId.of(second, 0).toString());
        redis.redis().hset(poisoned, "written-by", "not this queue");
        BackgroundTask firstBefore = ledger.find(first).orElseThrow();
        BackgroundTask secondBefore = ledger.find(second).orElseThrow();
        RuntimeException failed = assertThrows(RuntimeException.class, () -> sweeps.dispatchDue(200));
        LOG.info(() -> "the dispatch sweep failed as planned: " + failed);
        assertEquals(firstBefore, ledger.find(first).orElseThrow(), "the first row's mark was rolled back");
        assertEquals(secondBefore, ledger.find(second).orElseThrow());
        JobRecord added = job(first);
        assertEquals(JobState.WAITING, added.state(), "the queue is not transactional: the job stays");

        redis.redis().del(poisoned);
        sweeps.dispatchDue(200);
        for (UUID id : List.of(first, second)) {
            assertNotNull(ledger.find(id).orElseThrow().dispatchedAt(), "dispatched by the next sweep");
            assertSingleWaitingJob(id, "after the second sweep");
        }
        assertEquals(added.addedAt(), job(first).addedAt(), "the first job was found (duplicate), not added again");

        // Reconciliation sweep (R20): the same with a missing job before a poisoned one.
        UUID missing = waitingRow(Instant.now());
        UUID poisonedRow = waitingRow(Instant.now());
        String poisonedKey = queue.keys().job(TaskJobId.of(poisonedRow, 0).toString());
        redis.redis().hset(poisonedKey, "written-by", "not this queue");
        age(missing, poisonedRow);
        BackgroundTask missingBefore = ledger.find(missing).orElseThrow();
        BackgroundTask poisonedBefore = ledger.find(poisonedRow).orElseThrow();
        assertThrows(RuntimeException.class, () -> sweeps.reconcile(200));
        assertEquals(missingBefore, ledger.find(missing).orElseThrow(), "re-dispatch mark rolled back");
        assertEquals(poisonedBefore, ledger.find(poisonedRow).orElseThrow());
        redis.redis().del(poisonedKey);
        JobRecord readded = job(missing);
        assertTrue(sweeps.reconcile(200) >= 2);
        assertEquals(readded.addedAt(), job(missing).addedAt(), "found waiting, not added twice");
        assertSingleWaitingJob(poisonedRow, "missing after the poison was removed: added");
    }

    // ------------------------------------------------------------------------------------------
    // R19 stall recovery, R20 reconciliation
    // ------------------------------------------------------------------------------------------

    /**
     * R19: a RUNNING row not written for longer than the threshold (2 min) goes back to WAITING
     * with {@code executionId} and {@code dispatchedAt} cleared, and its old lease can no longer
     * write; a fresh RUNNING row and one just under the threshold are untouched. Then R18 hands the
     * run to the queue again.
     */
    @Test
    void staleRunningRowsGoBackToWaitingFreshOnesAreUntouched() throws Exception {
        UUID stale = waitingRow(Instant.now());
        UUID almost = waitingRow(Instant.now());
        UUID fresh = waitingRow(Instant.now());
        Lease staleLease = claim(stale);
        claim(almost);
        claim(fresh);
        ledger.writeProgress(staleLease, 42, Instant.now());
        data.exec("UPDATE background_task SET updated_at = ? WHERE id = ?", utc(Y2001), stale);
        data.exec("UPDATE background_task SET updated_at = now() - interval '100 seconds' WHERE id = ?", almost);
        BackgroundTask staleBefore = ledger.find(stale).orElseThrow();
        BackgroundTask almostBefore = ledger.find(almost).orElseThrow();
        BackgroundTask freshBefore = ledger.find(fresh).orElseThrow();
        assertEquals(TaskStatus.RUNNING, staleBefore.status());

        List<TaskJobId> recovered = sweeps.recoverStalled(200);
        assertTrue(recovered.contains(TaskJobId.of(stale, 0)), "recovered: " + recovered);
        assertFalse(recovered.contains(TaskJobId.of(almost, 0)));
        assertFalse(recovered.contains(TaskJobId.of(fresh, 0)));
        BackgroundTask after = ledger.find(stale).orElseThrow();
        assertEquals(TaskStatus.WAITING, after.status());
        assertNull(after.executionId(), "lease cleared");
        assertNull(after.dispatchedAt(), "to be dispatched again");
        assertTrue(after.updatedAt().isAfter(staleBefore.updatedAt()), "the recovery is a ledger write");
        assertEquals(List.of(0, 1, 42), List.of(after.run(), after.attempts(), after.progress()),
                "same run; attempts and progress stay until the next claim");
        assertEquals(almostBefore, ledger.find(almost).orElseThrow(), "100 s < 2 min: untouched");
        assertEquals(freshBefore, ledger.find(fresh).orElseThrow(), "fresh: untouched");
        assertThrows(LeaseLost.class, () -> ledger.writeProgress(staleLease, 50, Instant.now()),
                "the stalled execution's lease is gone");
        assertFalse(sweeps.recoverStalled(200).contains(TaskJobId.of(stale, 0)), "a WAITING row is not recovered again");

        makeDue(stale);
        sweeps.dispatchDue(200);
        assertNotNull(ledger.find(stale).orElseThrow().dispatchedAt());
        assertSingleWaitingJob(stale, "re-dispatched after recovery");
    }

    /**
     * R20 for WAITING rows already handed to the queue and not written for 2 min, one sweep: job
     * missing → the same run is dispatched again; queue record FAILED (exhausted) → the ledger
     * becomes FAILED with the fixed message of the cause, unless no execution of the run ever claimed it
     * (attempts 0: dispatched again, issue 28); record COMPLETED while the ledger waits → removed and
     * added again; record waiting → the queue still owns it: same job, the row stays WAITING.
     * The FAILED and COMPLETED records are made by a real queue {@link Worker} with a processor that
     * gives up on one job and finishes the other.
     */
    @Test
    void dispatchedWaitingRowsAreReconciledWithTheQueueRecord() throws Exception {
        UUID lost = UUID.randomUUID();
        UUID gaveUp = UUID.randomUUID();
        UUID finished = UUID.randomUUID();
        UUID queued = UUID.randomUUID();
        UUID neverClaimed = UUID.randomUUID();
        JobOptions options = JobOptions.defaults().withAttempts(3).withBackoff(Backoff.exponential(2000));
        queue.add(jobId(gaveUp), payload(gaveUp), options);
        queue.add(jobId(neverClaimed), payload(neverClaimed), options);
        queue.add(jobId(finished), payload(finished), options);
        ExecutorService pool = Executors.newCachedThreadPool();
        Worker worker = new Worker(redis.redis(), redis.prefix(), redis.queueName(), WorkerOptions.defaults(), job -> {
            if (job.id().equals(jobId(gaveUp)) || job.id().equals(jobId(neverClaimed))) {
                throw new UnrecoverableJobException("test: the queue gives up on this job");
            }
        }, pool);
        try {
            worker.start();
            awaitJobState(gaveUp, JobState.FAILED);
            awaitJobState(neverClaimed, JobState.FAILED);
            awaitJobState(finished, JobState.COMPLETED);
        } finally {
            worker.close(Duration.ofSeconds(10));
            pool.shutdownNow();
        }
        queue.add(jobId(queued), payload(queued), options);
        JobRecord queuedBefore = job(queued);
        JobRecord failedBefore = job(gaveUp);

        for (UUID id : List.of(lost, gaveUp, finished, queued, neverClaimed)) {
            insertWaiting(id, Instant.now(), Instant.now());
        }
        // gaveUp's run was claimed once (an execution reached the ledger); neverClaimed's never was (issue 28)
        assertEquals(1, data.exec("UPDATE background_task SET attempts = 1 WHERE id = ?", gaveUp));
        age(lost, gaveUp, finished, queued, neverClaimed);
        assertTrue(sweeps.reconcile(200) >= 5);

        BackgroundTask lostRow = ledger.find(lost).orElseThrow();
        assertEquals(TaskStatus.WAITING, lostRow.status());
        assertTrue(lostRow.dispatchedAt().isAfter(Y2001), "dispatched again");
        assertSingleWaitingJob(lost, "missing job added again");

        BackgroundTask failedRow = ledger.find(gaveUp).orElseThrow();
        assertEquals(TaskStatus.FAILED, failedRow.status());
        assertEquals(FailureCause.QUEUE_FAILED.lastError(), failedRow.lastError(),
                "the queue's reason names no known cause: the attempts-used-up text, not 'stopped responding'");
        assertEquals(failedBefore, job(gaveUp), "the queue's record is left as it is");

        BackgroundTask neverClaimedRow = ledger.find(neverClaimed).orElseThrow();
        assertEquals(TaskStatus.WAITING, neverClaimedRow.status(), "a run no execution claimed is not FAILED");
        assertEquals(0, neverClaimedRow.attempts());
        assertTrue(neverClaimedRow.dispatchedAt().isAfter(Y2001), "dispatched again");
        assertSingleWaitingJob(neverClaimed, "its failed record replaced by a waiting job of the same run");

        BackgroundTask finishedRow = ledger.find(finished).orElseThrow();
        assertEquals(TaskStatus.WAITING, finishedRow.status());
        assertSingleWaitingJob(finished, "completed in the queue but not in the ledger: added again");

        BackgroundTask queuedRow = ledger.find(queued).orElseThrow();
        assertEquals(TaskStatus.WAITING, queuedRow.status());
        assertEquals(0, queuedRow.run());
        assertEquals(queuedBefore, job(queued), "the queue still owns it: the same job, untouched");
        assertNotNull(queuedRow.dispatchedAt());

        assertEquals(TaskStatus.FAILED, ledger.find(gaveUp).orElseThrow().status());
        int again = sweeps.reconcile(200);
        LOG.info(() -> "second reconcile checked " + again + " rows");
        assertEquals(failedRow, ledger.find(gaveUp).orElseThrow(), "a FAILED row is not reconciled again");
        assertEquals(queuedBefore, job(queued), "rows just marked are not re-checked before the threshold");
    }

    // ------------------------------------------------------------------------------------------
    // R13 expiry and purge
    // ------------------------------------------------------------------------------------------

    /**
     * R13: a real export (the production processor, run here) whose {@code expiresAt} passed answers
     * 410 {@code export.expired}; the purge (the timer's body) clears its CSV and keeps the row,
     * summary and expiry; still 410 afterwards; an export not yet expired is untouched and still
     * downloads. A CSV gone before its expiry is 410 too, never an empty file. The purge deletes the
     * expired result's chunks and stray chunks of executions that are gone, never a live result's.
     */
    @Test
    void expiredExportsAnswer410AndThePurgeClearsOnlyTheirCsv() throws Exception {
        data.ticket(t.id(), t.customer(), t.staff(), "Expiring, soon");
        data.ticket(t.id(), t.customer(), t.staff(), "Another one");
        UUID old = completedExport();
        UUID young = completedExport();
        Api api = Api.at(url);
        String staff = Tokens.of(t.staff());
        Reply youngCsv = api.get("tasks/" + young + "/result", staff);
        assertEquals(200, youngCsv.status(), youngCsv.toString());
        assertEquals(200, api.get("tasks/" + old + "/result", staff).status());

        assertEquals(1, data.exec("UPDATE background_task SET expires_at = now() - interval '1 second' WHERE id = ?"
                + " AND status = 'COMPLETED'", old));
        BackgroundTask expired = ledger.find(old).orElseThrow();
        BackgroundTask youngBefore = ledger.find(young).orElseThrow();
        assertTrue(expired.hasResult(), "not purged yet");
        assertProblem(api.get("tasks/" + old + "/result", staff), 410, "export.expired");

        assertTrue(data.count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", old) > 0);
        long youngChunks = data.count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", young);
        UUID strayRun = UUID.randomUUID(); // chunks of an execution that lost its lease and died before cleaning up
        data.exec("INSERT INTO task_result_chunk (task_id, execution_id, seq, bytes) VALUES (?, ?, 0, '\\x6869'::bytea)",
                young, strayRun);

        assertTrue(sweeps.purgeExpiredResults(1000) >= 2);
        BackgroundTask purged = ledger.find(old).orElseThrow();
        assertFalse(purged.hasResult(), "the CSV is cleared");
        assertEquals(0, data.count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", old), "its chunks too");
        assertEquals(youngChunks, data.count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", young),
                "the stray chunk is swept, the young result's chunks stay");
        assertEquals(0, data.count("SELECT count(*) FROM task_result_chunk WHERE execution_id = ?", strayRun));
        assertNull(purged.resultBytes());
        assertEquals(TaskStatus.COMPLETED, purged.status(), "the row stays");
        assertEquals("2 tickets exported", purged.resultSummary(), "the summary stays");
        assertEquals(expired.expiresAt(), purged.expiresAt(), "the expiry stays");
        assertEquals(100, purged.progress());
        assertEquals(youngBefore, ledger.find(young).orElseThrow(), "a CSV within its 24 h is untouched");
        assertProblem(api.get("tasks/" + old + "/result", staff), 410, "export.expired");
        Reply stillYoung = api.get("tasks/" + young + "/result", staff);
        assertEquals(200, stillYoung.status());
        assertEquals(Arrays.toString(youngCsv.bytes()), Arrays.toString(stillYoung.bytes()));
        JsonObject task = api.get("tasks/" + old, staff).json();
        assertEquals("COMPLETED", task.getString("status"));
        assertEquals("2 tickets exported", task.getString("resultSummary"));
        assertEquals(expired.expiresAt(), OffsetDateTime.parse(task.getString("expiresAt")).toInstant());

        sweeps.purgeExpiredResults(1000);
        assertEquals(purged, ledger.find(old).orElseThrow(), "purging again does not touch it");

        data.exec("UPDATE background_task SET result_execution_id = NULL, result_size = NULL, result_sha256 = NULL"
                + " WHERE id = ?", young);
        assertProblem(api.get("tasks/" + young + "/result", staff), 410, "export.expired");
    }

    // ------------------------------------------------------------------------------------------
    // helpers
    // ------------------------------------------------------------------------------------------

    /** Runs a and b on two container-managed threads released together by one barrier. */
    private int[] race(Callable<Integer> a, Callable<Integer> b) throws Exception {
        ManagedExecutorService executor = (ManagedExecutorService) new InitialContext()
                .lookup("java:comp/DefaultManagedExecutorService");
        CyclicBarrier barrier = new CyclicBarrier(2);
        Future<Integer> fa = executor.submit(() -> TestClock.tagged("A", () -> {
            barrier.await(WAIT_S, TimeUnit.SECONDS);
            return a.call();
        }));
        Future<Integer> fb = executor.submit(() -> TestClock.tagged("B", () -> {
            barrier.await(WAIT_S, TimeUnit.SECONDS);
            return b.call();
        }));
        return new int[] {fa.get(WAIT_S, TimeUnit.SECONDS), fb.get(WAIT_S, TimeUnit.SECONDS)};
    }

    /** The dispatch timer's body (TaskTimers.dispatch) with a given batch size. */
    private int timerLoop(int batch) {
        int total = 0;
        int n;
        do {
            n = sweeps.dispatchDue(batch);
            total += n;
        } while (n == batch);
        return total;
    }

    /** @return rows (any team) whose dispatched_at is one of these instants */
    private long rowsMarkedBy(List<Instant> instants) {
        long n = 0;
        for (Instant i : instants) {
            n += data.count("SELECT count(*) FROM background_task WHERE dispatched_at = ?", utc(i));
        }
        return n;
    }

    private void assertEqualsRowsMarkedBy(int handled, List<Instant> instants, String what) {
        assertEquals(handled, rowsMarkedBy(instants), what + " handled " + handled
                + " rows; the rows still carrying its instants must be exactly those (a row handed over twice"
                + " carries the other sweep's instant)");
    }

    private void assertSingleWaitingJob(UUID taskId, String what) {
        JobRecord job = job(taskId);
        assertEquals(JobState.WAITING, job.state(), what);
        assertEquals(0, job.attemptsStarted(), what + ": never fetched");
        assertEquals(payload(taskId), job.data(), what);
        // issue 30: a run waits in its team's lane (the team is its queue job's group), once
        String team = ledger.find(taskId).orElseThrow().teamId().toString();
        List<String> waiting = redis.redis().zrange(queue.keys().lane(team), 0, -1);
        assertEquals(1, waiting.stream().filter(jobId(taskId)::equals).count(), what + ": listed once in its team's lane");
    }

    private JobRecord job(UUID taskId) {
        return queue.getJob(jobId(taskId)).orElseThrow(() -> new AssertionError("no job " + jobId(taskId)));
    }

    private void awaitJobState(UUID taskId, JobState state) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(WAIT_S);
        while (Instant.now().isBefore(deadline)) {
            if (queue.getJob(jobId(taskId)).map(j -> j.state() == state).orElse(false)) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError(jobId(taskId) + " never became " + state + ": " + queue.getJob(jobId(taskId)));
    }

    private static String jobId(UUID taskId) {
        return TaskJobId.of(taskId, 0).toString();
    }

    /** The dispatcher's payload of run 0. */
    private static String payload(UUID taskId) {
        return "{\"taskId\":\"" + taskId + "\",\"run\":0}";
    }

    /**
     * A WAITING export of this team, not due for a day (no sweep anywhere touches it until the
     * test makes it due).
     *
     * @param dispatchedAndUpdated null = not dispatched; else dispatched, and not written since then
     */
    private UUID waitingRow(Instant dispatchedAndUpdated) {
        UUID id = UUID.randomUUID();
        insertWaiting(id, dispatchedAndUpdated, dispatchedAndUpdated);
        return id;
    }

    private void insertWaiting(UUID id, Instant dispatchedAt, Instant updatedAt) {
        OffsetDateTime now = utc(Instant.now());
        data.exec("INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,"
                + " progress, dispatched_at, run_at, created_at, updated_at) VALUES (?, 'EXPORT', ?, ?, 'TEAM',"
                + " '{\"timeZone\":\"UTC\"}'::jsonb, 'WAITING', 0, 0, 0, ?, ?, ?, ?)", id, t.id(), t.owner(),
                dispatchedAt == null ? null : utc(dispatchedAt), now.plusDays(1), now,
                updatedAt == null ? now : utc(updatedAt));
    }

    /**
     * Ages dispatched WAITING rows right before the sweep under test (so that no other server's
     * reconciliation sees them aged for long): updated_at and dispatched_at in 2001, one second
     * apart in the given order (the sweeps' ORDER BY updated_at).
     */
    private void age(UUID... ids) {
        for (int i = 0; i < ids.length; i++) {
            assertEquals(1, data.exec("UPDATE background_task SET updated_at = ?, dispatched_at = ? WHERE id = ?",
                    utc(Y2001.plusSeconds(i)), utc(Y2001.plusSeconds(i)), ids[i]));
        }
    }

    private void makeDue(UUID id) {
        assertEquals(1, data.exec("UPDATE background_task SET run_at = ? WHERE id = ?", utc(Y2001), id));
    }

    private Lease claim(UUID id) {
        return ledger.claim(id, 0, 0, Instant.now()).orElseThrow().lease();
    }

    /** An export of this team created by staff and run to COMPLETED by the production processor. */
    private UUID completedExport() throws Exception {
        BackgroundTask created = tasks.create(t.staff(), t.id(), TaskRequests.export("TEAM", null, null));
        processor.process(new RecordingJob(TaskJobId.of(created.id(), 0), 0));
        BackgroundTask done = ledger.find(created.id()).orElseThrow();
        assertEquals(TaskStatus.COMPLETED, done.status());
        assertEquals(Duration.ofHours(24), Duration.between(done.updatedAt(), done.expiresAt()));
        return created.id();
    }

    private static OffsetDateTime utc(Instant i) {
        return OffsetDateTime.ofInstant(i.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
    }

    private static void assertProblem(Reply r, int status, String code) {
        assertEquals(status, r.status(), r.toString());
        assertTrue(r.header("Content-Type").startsWith("application/problem+json"), r.toString());
        assertEquals(code, r.json().getString("code"), r.toString());
        assertNotEquals(0, r.json().getString("detail").length());
    }
}
