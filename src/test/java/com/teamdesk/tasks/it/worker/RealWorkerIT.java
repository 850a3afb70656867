package com.teamdesk.tasks.it.worker;

import com.teamdesk.tasks.it.engine.EngineCase;
import com.teamdesk.tasks.it.engine.EngineFixtures;
import com.teamdesk.tasks.it.engine.GatedPausePoints.Gate;
import com.teamdesk.tasks.it.engine.GatedPausePoints;
import com.teamdesk.tasks.it.support.Sweeps;
import com.teamdesk.tasks.it.support.TaskRequests;
import com.teamdesk.tasks.it.support.TestDeployments;
import com.teamdesk.tasks.it.worker.WorkerEvents.Event;
import com.teamdesk.tasks.it.worker.WorkerEvents.Kind;
import com.teamdesk.tasks.queue.JobRecord;
import com.teamdesk.tasks.queue.JobState;
import com.teamdesk.tasks.queue.Queue;
import com.teamdesk.tasks.queue.Worker;
import com.teamdesk.tasks.queue.WorkerListener;
import com.teamdesk.tasks.queue.WorkerOptions;
import com.teamdesk.tasks.task.engine.RetryPolicy;
import com.teamdesk.tasks.task.engine.TaskDispatcher;
import com.teamdesk.tasks.task.engine.TaskProcessor;
import com.teamdesk.tasks.task.engine.TaskQueueListener;
import com.teamdesk.tasks.task.export.ExportPausePoint;
import com.teamdesk.tasks.task.export.ExportRejection;
import com.teamdesk.tasks.task.export.ExportResultStore;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.reminder.ReminderPausePoint;
import com.teamdesk.tasks.task.service.TaskService;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.CoreRejection;
import com.teamdesk.tasks.task.spi.EnginePausePoint;
import com.teamdesk.tasks.task.spi.Lease;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.task.spi.TaskStatus;
import com.teamdesk.tasks.team.TicketFilter;
import jakarta.inject.Inject;
import jakarta.json.Json;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import static com.teamdesk.tasks.it.worker.WorkerEvents.Kind.COMPLETED;
import static com.teamdesk.tasks.it.worker.WorkerEvents.Kind.FAILED;
import static com.teamdesk.tasks.it.worker.WorkerEvents.Kind.RETURNED;
import static com.teamdesk.tasks.it.worker.WorkerEvents.Kind.STALLED;
import static com.teamdesk.tasks.it.worker.WorkerEvents.Kind.STARTED;
import static com.teamdesk.tasks.it.worker.WorkerEvents.Kind.THREW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * T3 (R6, R7, R9-R12, R19-R21): the engine with REAL queue workers, in the server, against the real
 * PostgreSQL and Redis. Each test starts its own {@link Worker}s A (and B) running the production
 * {@link TaskProcessor} with the production {@link TaskQueueListener}, on the production queue
 * ({@code RedisResources}: same client, prefix and queue as the production dispatcher), on threads of the
 * container's {@code ManagedThreadFactory}. Nothing is hand-emitted: every {@code stalled}, {@code failed}
 * and {@code completed} comes from a worker, and the sweeps are the real {@code TaskRecovery#recoverStalled}
 * and {@link TaskDispatcher#dispatchDue} (the server's own worker and timers are off in this deployment, so
 * nothing else moves the rows or the queue).
 *
 * <p>Only timing is shortened: lock 1000 ms renewed every 500 ms and a stalled check every 100 ms on the
 * test's workers ({@link WorkerRig#FAST}), and a 30 ms retry backoff ({@code teamdesk.task.backoff-ms}).
 * Ordering comes from gates at the production pause points ({@link GatedPausePoints}), worker events and a
 * held listener event ({@link LateFailedListener}); every wait is bounded (8 s) only to detect a sync point
 * that never came. The 2-minute stall threshold of R19 is NOT waited for: the tests move the row's
 * {@code updatedAt} 10 minutes into the past ({@link EngineFixtures#age}), which compresses that clock; no
 * two minutes pass.
 *
 * <p>The stalled check runs at most once per interval across the queue's workers (a guard key), so whichever
 * of A's or B's housekeeping wins the guard finds the expired lock and emits {@code stalled}; the tests
 * accept either (both are real workers with the same settings) and name the one that did in the messages.
 *
 * <p>Walk-through of the two-sweep convergence these tests prove: {@code docs/recovery.md}.
 */
@ExtendWith(ArquillianExtension.class)
@Execution(ExecutionMode.SAME_THREAD)
class RealWorkerIT {

    @Deployment
    static WebArchive deployment() {
        return EngineCase.deploymentWithoutWorker(Map.of("teamdesk.task.backoff-ms", "30"),
                RealWorkerIT.class, WorkerRig.class, TestWorkers.class, WorkerEvents.class, LateFailedListener.class,
                LedgerWritingFailedListener.class, LogCapture.class);
    }

    /** The sweeps look at every row; a generous limit so that other rows never crowd this test's row out. */
    private static final int SWEEP_LIMIT = 1000;
    /** How far {@code updatedAt} is moved back: beyond the 2-minute stall threshold (R19). */
    private static final Duration AGED = Duration.ofMinutes(10);
    private static final String READ_ERROR = "injected read error";

    @Inject
    EngineFixtures fx;
    @Inject
    GatedPausePoints gates;
    @Inject
    WorkerRig rig;
    @Inject
    TaskService tasks;
    @Inject
    JdbcTaskLedger ledger;

    @Inject
    ExportResultStore store;
    @Inject
    Sweeps sweeps;
    @Inject
    RetryPolicy policy;
    @Inject
    Queue queue;
    @Inject
    TaskQueueListener productionListener;
    @Inject
    Clock clock;

    private EngineFixtures.TestTeam team;
    private List<UUID> tickets;
    private UUID task;
    private String jobId;
    private WorkerEvents events;
    private TestWorkers workers;
    private LateFailedListener late;
    private LogCapture taskLog;

    @BeforeEach
    void setUp() {
        team = fx.newTeam();
        tickets = fx.tickets(team, 25, "Ticket");
        events = new WorkerEvents();
        workers = rig.open(events);
        taskLog = LogCapture.on(TaskQueueListener.class);
    }

    @AfterEach
    void tearDown() {
        try {
            if (late != null) {
                late.release();
            }
            if (task != null) {
                gates.reset(task); // releases every gate of the task: no worker thread stays parked
            }
        } finally {
            try {
                workers.close();
            } finally {
                taskLog.close();
                queue.obliterate(); // workers are closed: the next test starts with an empty queue
            }
        }
    }

    // ---- 1-2: stalled takeover ------------------------------------------------------------------------

    /**
     * T3.1. Export: A reads a batch and pauses; its lock expires (renewal off); the real stalled check moves
     * the job back; B claims it as E2. A then continues with a read error: its failure report matches 0 rows
     * and the row still equals B's E2 snapshot. B runs to the end.
     */
    @Test
    void stalledTakeoverExport() throws Exception {
        createExport();
        Gate aRead = gates.gate(ExportPausePoint.EXPORT_AFTER_BATCH_READ, task, 1);
        gates.fault(ExportPausePoint.EXPORT_AFTER_BATCH_READ, task, 1, () -> new IllegalStateException(READ_ERROR));

        stalledTakeover(aRead);

        BackgroundTask t = row();
        assertCompletedByB(t);
        assertEquals("25 tickets exported", t.resultSummary());
        assertEquals(t.updatedAt().plus(Duration.ofHours(24)), t.expiresAt(), "CSV kept 24 h from completion");
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        store.writeResult(store.storedResult(task).orElseThrow(), out);
        String csv = out.toString(StandardCharsets.UTF_8);
        assertEquals(26, csv.split("\r\n").length, "header + 25 tickets");
    }

    /**
     * T3.2. Reminder: A takes the team lock, reads its lease and pauses (inside its transaction); the same
     * takeover; A's read error rolls its transaction back and its report matches 0 rows; B's run gives
     * exactly 1 notification, 1 event and ticket version +1.
     */
    @Test
    void stalledTakeoverReminder() throws Exception {
        UUID ticket = tickets.get(0);
        setTask(tasks.create(team.staff(), team.id(), TaskRequests.reminder(
                ticket.toString(), "Please look at this", "ASSIGNEE")).id());
        Gate aRead = gates.gate(ReminderPausePoint.REMINDER_AFTER_LEASE_READ, task, 1);
        gates.fault(ReminderPausePoint.REMINDER_AFTER_LEASE_READ, task, 1, () -> new IllegalStateException(READ_ERROR));

        stalledTakeover(aRead);

        assertCompletedByB(row());
        assertEquals(1, fx.count("SELECT count(*) FROM notification WHERE task_id = ?", task));
        assertEquals(1, fx.count("SELECT count(*) FROM system_event WHERE task_id = ?", task));
        assertEquals(2, fx.ticketVersion(ticket), "version 1 + 1");
    }

    /**
     * The common part of T3.1/T3.2; returns once B has completed the job. {@code aGate} holds A after it
     * read from the database; a fault is armed at the same arrival, so A continues with an error.
     */
    private void stalledTakeover(Gate aGate) throws Exception {
        Gate bClaim = gates.gate(EnginePausePoint.AFTER_CLAIM, task, 2); // A's claim is arrival 1
        Worker a = workers.start("A", WorkerRig.FAST, false, productionListener, events.listener("A"));
        Lease leaseA = aGate.awaitArrival();
        BackgroundTask e1 = row();
        assertEquals(TaskStatus.RUNNING, e1.status());
        assertEquals(leaseA.executionId(), e1.executionId());
        assertEquals(1, e1.attempts());

        // B only starts now, so A surely has the job. A's lock is not renewed: it expires after 1000 ms and
        // the real stalled check (R6) moves the job back to waiting; B, the only worker with a free slot,
        // fetches it and claims the run as E2 (R7), and is held right after its claim.
        workers.start("B", WorkerRig.FAST, true, productionListener, events.listener("B"));
        Event stalled = events.await(STALLED, jobId, 1);
        Lease leaseB = bClaim.awaitArrival();
        assertEquals(List.of("A", "B"), workersOf(STARTED), "B's execution is the second start");
        assertNotEquals(leaseA.executionId(), leaseB.executionId());
        BackgroundTask e2 = row();
        assertEquals(TaskStatus.RUNNING, e2.status());
        assertEquals(leaseB.executionId(), e2.executionId(), "B's claim replaced A's lease (R7)");
        assertEquals(1, e2.attempts(), "a stall is not an attempt: B also runs with attemptsMade 0 (R3)");
        assertEquals(0, e2.progress());
        JobRecord takenOver = job();
        assertEquals(JobState.ACTIVE, takenOver.state());
        assertEquals(1, takenOver.stalledCounter(), "stalled once (found by " + stalled.worker() + ")");
        assertEquals(0, takenOver.attemptsMade());
        assertEquals(2, takenOver.attemptsStarted());
        assertEquals(1, taskLog.lines("task.stalled taskId=" + task, "run=0").size(), "the production listener logged");

        // A continues with its injected read error. Its failure report is lease-checked: 0 rows (R8, R11),
        // so the processor returns quietly; the worker's completion is refused (lock lost, R6).
        aGate.release();
        assertTrue(workers.join(a), "A's execution ended");
        assertEquals(List.of(STARTED, RETURNED), kindsOf("A"), "A's processor returned quietly (R11: report not allowed)");
        assertEquals(1, gates.arrivals(EnginePausePoint.BEFORE_FAILURE_REPORT, task), "A did try its failure report");
        assertEquals(e2, row(), "A's failure report matched 0 rows: the whole row still equals B's E2 snapshot");
        assertEquals(takenOver, job(), "A's outcome did not move the job (lock lost)");
        assertTrue(events.of(FAILED, jobId).isEmpty());
        assertTrue(events.of(COMPLETED, jobId).isEmpty());

        // B runs to the end.
        bClaim.release();
        Event completed = events.await(COMPLETED, jobId, 1);
        assertEquals("B", completed.worker());
        assertEquals(1, completed.attemptsMade());
        JobRecord done = job();
        assertEquals(JobState.COMPLETED, done.state());
        assertEquals(100, done.progress(), "B's final progress-100 report reached the queue (R12)");
        assertEquals(1, done.attemptsMade(), "the completion counts, the stall does not");
        assertEquals(1, done.stalledCounter());
        assertFalse(done.exhausted());
        assertEquals(List.of(STARTED, RETURNED), kindsOf("B"));
    }

    private void assertCompletedByB(BackgroundTask t) {
        assertEquals(TaskStatus.COMPLETED, t.status());
        assertEquals(100, t.progress());
        assertNull(t.executionId());
        assertNull(t.lastError());
        assertEquals(0, t.run());
        assertEquals(1, t.attempts());
    }

    // ---- 3: late failed listener -----------------------------------------------------------------------

    /** T3.3 with the production listener: a late {@code failed} event changes nothing; E2 completes. */
    @Test
    void lateFailedListenerCannotClobberE2() throws Exception {
        lateFailedListener(productionListener);
        BackgroundTask t = row();
        assertEquals(TaskStatus.COMPLETED, t.status());
        assertEquals(100, t.progress());
        assertNull(t.executionId());
        assertEquals(1, t.attempts());
        assertEquals("25 tickets exported", t.resultSummary());
        JobRecord done = job();
        assertEquals(JobState.COMPLETED, done.state());
        assertEquals(100, done.progress());
        assertEquals(1, done.attemptsMade());
        assertEquals(List.of("A", "B"), workersOf(STARTED));
        assertEquals(1, taskLog.lines("task.failed taskId=" + task, "run=0 attemptsMade=1 exhausted=true").size(),
                "the late event did reach the production listener, which only logged it");
    }

    /**
     * T3.3, proof that the test catches the bug: the same scenario with a (test-only) listener that writes
     * FAILED by {@code taskId+run}, as the old listener did, must fail — E2 turned FAILED, lease gone.
     */
    @Test
    void lateFailedListenerTestCatchesALedgerWritingListener() throws Exception {
        AssertionError caught = assertThrows(AssertionError.class,
                () -> lateFailedListener(new LedgerWritingFailedListener(fx)));
        assertTrue(caught.getMessage().contains("the task stays E2"), caught.getMessage());
        BackgroundTask clobbered = row();
        assertEquals(TaskStatus.FAILED, clobbered.status(), "E2 turned FAILED");
        assertNull(clobbered.executionId(), "B's lease is gone");
        assertEquals(LedgerWritingFailedListener.MESSAGE, clobbered.lastError());
    }

    /**
     * T3.3. A's read fails and its WAITING report is made to fail once, so the row stays RUNNING with A's
     * lease while the queue (attempts=1 for this test) records the job failed for good. The {@code failed}
     * event is held before the listener under test. The queue record is removed (its loss); {@code updatedAt}
     * is aged; the real sweeps re-dispatch the same run; B claims it as E2. Only then does the held event
     * reach the listener under test: the task must stay E2, then complete.
     */
    private void lateFailedListener(WorkerListener listenerUnderTest) throws Exception {
        // The row as TaskService writes it; the queue job with the production payload and options except
        // attempts=1 (this test only). The production dispatcher then finds the DUPLICATE, looks at the
        // record (WAITING) and marks the row dispatched (R2, R20).
        setTask(UUID.randomUUID());
        Instant now = clock.instant();
        ledger.insert(task, TaskKind.of("EXPORT"), team.id(), team.staff(), TaskScope.TEAM, openTicketsFilter(), now, now);
        queue.add(jobId, "{\"taskId\":\"" + task + "\",\"run\":0}", policy.jobOptions().withAttempts(1));
        sweeps.dispatchNow(task);
        assertNotNull(row().dispatchedAt());
        gates.fault(ExportPausePoint.EXPORT_AFTER_BATCH_READ, task, 1, () -> new IllegalStateException(READ_ERROR));
        gates.fault(EnginePausePoint.BEFORE_FAILURE_REPORT, task, 1,
                () -> new IllegalStateException("injected: the WAITING report could not be written"));
        late = new LateFailedListener(jobId, listenerUnderTest);

        Worker a = workers.start("A", WorkerRig.FAST, true, events.listener("A"), late);
        Event failed = events.await(FAILED, jobId, 1);
        late.awaitArrival();
        assertEquals("A", failed.worker());
        assertEquals(1, failed.attemptsMade());
        assertTrue(failed.exhausted(), "attempts=1: the queue failed the job for good");
        assertEquals(READ_ERROR, failed.reason());
        Event threw = events.of(THREW, jobId).get(0);
        BackgroundTask stale = threw.row();
        assertEquals(TaskStatus.RUNNING, stale.status(), "the WAITING report failed: the row kept A's lease");
        assertNotNull(stale.executionId());
        JobRecord failedRecord = job();
        assertEquals(JobState.FAILED, failedRecord.state());
        assertTrue(failedRecord.exhausted());
        assertEquals(1, failedRecord.attemptsMade());

        // The queue loses the record.
        assertTrue(queue.remove(jobId));
        assertTrue(queue.getJob(jobId).isEmpty());

        // Compress the 2-minute stall clock (R19): move updatedAt back instead of waiting.
        fx.age(task, AGED);
        // Sweep 1, stall recovery (R19): RUNNING -> WAITING, lease and dispatch cleared.
        assertTrue(sweeps.recoverStalled(SWEEP_LIMIT).contains(TaskJobId.of(task, 0)));
        BackgroundTask recovered = row();
        assertEquals(TaskStatus.WAITING, recovered.status());
        assertNull(recovered.executionId());
        assertNull(recovered.dispatchedAt());
        // Sweep 2, dispatch (R18, R20): the queue has no record of the run -> the SAME run is added again.
        sweeps.dispatchDue(SWEEP_LIMIT);
        BackgroundTask redispatched = row();
        assertEquals(TaskStatus.WAITING, redispatched.status());
        assertEquals(0, redispatched.run());
        assertNotNull(redispatched.dispatchedAt());
        JobRecord again = job();
        assertEquals(JobState.WAITING, again.state());
        assertEquals(0, again.attemptsMade(), "a fresh record of the same job id");

        // B claims the run as E2 (A's only slot is still busy delivering the held event).
        Gate bClaim = gates.gate(EnginePausePoint.AFTER_CLAIM, task, 2);
        workers.start("B", WorkerRig.FAST, true, productionListener, events.listener("B"));
        Lease leaseB = bClaim.awaitArrival();
        BackgroundTask e2 = row();
        assertEquals(TaskStatus.RUNNING, e2.status());
        assertEquals(leaseB.executionId(), e2.executionId());
        assertNotEquals(stale.executionId(), e2.executionId());

        // Now let any ledger write the listener under test makes on the late event go through.
        late.release();
        late.awaitDelivered();
        assertEquals(e2, row(), "the task stays E2: a failed listener must not write the ledger (R21)");
        assertTrue(workers.join(a));

        bClaim.release();
        Event completed = events.await(COMPLETED, jobId, 1);
        assertEquals("B", completed.worker());
    }

    // ---- 4: transient retry ----------------------------------------------------------------------------

    /**
     * R13 on the production worker: the creator of a TEAM export is demoted to customer while the worker is
     * paused after its batch; the export's own check after the last batch (the one that also tells a batch
     * emptied by the in-statement re-check from the end) makes it PERMISSION_LOST — a final failure, no
     * retry, no CSV and no chunk left.
     */
    @Test
    void demotionDuringTheExportFailsItOnTheWorkerWithNoResult() throws Exception {
        createExport();
        Gate afterBatch = gates.gate(ExportPausePoint.EXPORT_AFTER_BATCH_READ, task, 1);

        workers.start("A", WorkerRig.FAST, true, productionListener, events.listener("A"));
        afterBatch.awaitArrival();
        fx.setRole(team.id(), team.staff(), "CUSTOMER");
        afterBatch.release();

        Event failed = events.await(FAILED, jobId, 1);
        assertTrue(failed.exhausted(), "a rejection is final (R11)");
        BackgroundTask t = row();
        assertEquals(TaskStatus.FAILED, t.status());
        assertEquals(CoreRejection.PERMISSION_LOST.message(), t.lastError());
        assertNull(t.resultDigest(), "no CSV");
        assertEquals(0, fx.count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", task), "no chunk left");
    }

    /**
     * T3.4. The first read fails; the same worker retries after the shortened backoff; ledger attempts and
     * queue attemptsMade both end at 2, COMPLETED; the first {@code task.failed} line says exhausted=false.
     */
    @Test
    void transientErrorIsRetriedBySameWorkerAfterBackoff() throws Exception {
        createExport();
        gates.fault(ExportPausePoint.EXPORT_AFTER_BATCH_READ, task, 1, () -> new IllegalStateException(READ_ERROR));

        workers.start("A", WorkerRig.FAST, true, productionListener, events.listener("A"));
        Event completed = events.await(COMPLETED, jobId, 1);
        assertEquals("A", completed.worker());
        assertEquals(2, completed.attemptsMade());

        List<Event> started = events.of(STARTED, jobId);
        assertEquals(List.of("A", "A"), started.stream().map(Event::worker).toList(), "the same worker retried");
        assertEquals(List.of(0, 1), started.stream().map(Event::attemptsMade).toList());
        Event threw = events.of(THREW, jobId).get(0);
        assertEquals("IllegalStateException: " + READ_ERROR, threw.reason(), "rethrown as it was: transient (R11)");
        BackgroundTask between = threw.row();
        assertEquals(TaskStatus.WAITING, between.status(), "the processor's own report: WAITING, will retry");
        assertEquals(TaskProcessor.RETRYING_MESSAGE, between.lastError());
        assertEquals(1, between.attempts());
        assertNull(between.executionId());

        List<Event> failed = events.of(FAILED, jobId);
        assertEquals(1, failed.size());
        assertEquals(1, failed.get(0).attemptsMade());
        assertFalse(failed.get(0).exhausted());
        assertEquals(30, policy.jobOptions().backoff().baseDelayMs(), "the shortened backoff is in force");
        // THREW is recorded before the worker's fail script puts the job in DELAYED until (script time + 30 ms),
        // so the second start comes at least ~30 ms later (the delayed score is whole ms: allow 1 ms, and a
        // little slack for the two clocks, Redis TIME and the JVM's nanoTime, on this one host).
        long gapMs = TimeUnit.NANOSECONDS.toMillis(started.get(1).nanos() - threw.nanos());
        assertTrue(gapMs >= 25, "the retry waited for the 30 ms backoff; it started " + gapMs + " ms after the error");

        JobRecord done = job();
        assertEquals(JobState.COMPLETED, done.state());
        assertEquals(2, done.attemptsMade());
        assertEquals(2, done.attemptsStarted());
        assertEquals(100, done.progress());
        BackgroundTask t = row();
        assertEquals(TaskStatus.COMPLETED, t.status());
        assertEquals(2, t.attempts(), "ledger attempts = queue attemptsMade = 2");
        assertEquals(100, t.progress());
        assertNull(t.lastError());
        assertNull(t.executionId());
        assertEquals("25 tickets exported", t.resultSummary());

        List<String> logged = taskLog.lines("task.failed taskId=" + task);
        assertEquals(1, logged.size(), logged.toString());
        assertTrue(logged.get(0).contains("run=0 attemptsMade=1 exhausted=false"), logged.get(0));
    }

    // ---- 5: permanent rejection ------------------------------------------------------------------------

    /**
     * T3.5. Stored filters that no longer validate: the processor writes FAILED itself and the queue ends
     * the job at once (attemptsMade 1, exhausted); no listener wrote the ledger.
     */
    @Test
    void invalidFiltersAreRejectedAtOnce() throws Exception {
        setTask(UUID.randomUUID());
        Instant now = clock.instant();
        ledger.insert(task, TaskKind.of("EXPORT"), team.id(), team.staff(), TaskScope.TEAM,
                "{\"status\":[\"ARCHIVED\"],\"timeZone\":\"UTC\"}", now, now); // valid JSON, invalid filters
        sweeps.dispatchNow(task);

        workers.start("A", WorkerRig.FAST, true, productionListener, events.listener("A"));
        Event failed = events.await(FAILED, jobId, 1);
        String rejected = ExportRejection.INVALID_FILTERS.message();
        assertEquals(1, failed.attemptsMade());
        assertTrue(failed.exhausted());
        assertEquals(rejected, failed.reason());

        Event threw = events.of(THREW, jobId).get(0);
        assertTrue(threw.reason().startsWith("UnrecoverableJobException: "), threw.reason());
        BackgroundTask written = threw.row(); // read when the processor ended, before the queue or a listener heard
        assertEquals(TaskStatus.FAILED, written.status(), "the processor wrote FAILED itself (R11)");
        assertEquals(rejected, written.lastError());
        assertEquals(1, written.attempts());
        assertNull(written.executionId());
        assertNull(written.resultDigest());
        // The recorder is the last listener: the production listener has already run.
        assertEquals(written, row(), "nothing was written after the processor's report: no listener wrote the ledger");

        JobRecord record = job();
        assertEquals(JobState.FAILED, record.state());
        assertEquals(1, record.attemptsMade());
        assertEquals(1, record.attemptsStarted(), "no retry");
        assertTrue(record.exhausted());
        assertEquals(rejected, record.failedReason());
        assertEquals(1, events.of(STARTED, jobId).size());
        List<String> logged = taskLog.lines("task.failed taskId=" + task);
        assertEquals(1, logged.size(), logged.toString());
        assertTrue(logged.get(0).contains("run=0 attemptsMade=1 exhausted=true"), logged.get(0));
    }

    // ---- 6: stalled over the limit ---------------------------------------------------------------------

    /**
     * T3.6. maxStalledCount 0: the real stalled check fails the job in the queue while the ledger still says
     * RUNNING (the listener only logs, R21). With {@code updatedAt} aged, sweep 1 makes the row WAITING with
     * the lease cleared (R19); sweep 2 sees the queue's failed record and makes it FAILED (R20). A then
     * returns with a stale error and changes nothing.
     */
    @Test
    void stalledOverTheLimitConvergesToFailedInTwoSweeps() throws Exception {
        createExport();
        Gate aRead = gates.gate(ExportPausePoint.EXPORT_AFTER_BATCH_READ, task, 1);
        gates.fault(ExportPausePoint.EXPORT_AFTER_BATCH_READ, task, 1, () -> new IllegalStateException(READ_ERROR));
        // Both workers check with maxStalledCount 0, so the outcome does not depend on whose housekeeping
        // wins the stalled-check guard.
        WorkerOptions noStalls = WorkerRig.FAST.withMaxStalledCount(0);

        Worker a = workers.start("A", noStalls, false, productionListener, events.listener("A"));
        Lease leaseA = aRead.awaitArrival();
        workers.start("B", noStalls, true, productionListener, events.listener("B"));
        Event stalled = events.await(STALLED, jobId, 1);
        Event failed = events.await(FAILED, jobId, 1);
        assertEquals(stalled.worker(), failed.worker(), "both from the same stalled check");
        assertTrue(stalled.nanos() <= failed.nanos(), "stalled, then failed");
        assertEquals(0, failed.attemptsMade(), "a stall is not an attempt made");
        assertTrue(failed.exhausted());
        assertEquals("job stalled more than allowable limit", failed.reason());
        JobRecord queueFailed = job();
        assertEquals(JobState.FAILED, queueFailed.state());
        assertTrue(queueFailed.exhausted());
        assertEquals(1, queueFailed.stalledCounter());
        assertEquals(0, queueFailed.attemptsMade());
        BackgroundTask running = row();
        assertEquals(TaskStatus.RUNNING, running.status(), "the ledger still says RUNNING: listeners only log (R21)");
        assertEquals(leaseA.executionId(), running.executionId());
        assertEquals(1, taskLog.lines("task.failed taskId=" + task, "attemptsMade=0 exhausted=true",
                "job stalled more than allowable limit").size(), "the production listener logged the exhausted failure");

        // Compress the 2-minute stall clock (R19): move updatedAt back instead of waiting.
        fx.age(task, AGED);
        // Sweep 1, stall recovery (R19): RUNNING -> WAITING, executionId and dispatchedAt cleared.
        assertTrue(sweeps.recoverStalled(SWEEP_LIMIT).contains(TaskJobId.of(task, 0)));
        BackgroundTask afterSweep1 = row();
        assertEquals(TaskStatus.WAITING, afterSweep1.status());
        assertNull(afterSweep1.executionId());
        assertNull(afterSweep1.dispatchedAt());
        assertEquals(queueFailed, job(), "the queue record is untouched by the sweep");
        // Sweep 2, dispatch (R18, R20): the add is a DUPLICATE; the record is FAILED -> the ledger FAILED.
        sweeps.dispatchDue(SWEEP_LIMIT);
        BackgroundTask afterSweep2 = row();
        assertEquals(TaskStatus.FAILED, afterSweep2.status());
        assertEquals(TaskDispatcher.QUEUE_FAILED_MESSAGE, afterSweep2.lastError());
        assertNull(afterSweep2.executionId());
        assertEquals(queueFailed, job(), "no second job: the duplicate add changed nothing (R2)");

        // A returns with its stale read error: its failure report matches 0 rows, its outcome is refused.
        aRead.release();
        assertTrue(workers.join(a), "A's execution ended");
        assertEquals(List.of(STARTED, RETURNED), kindsOf("A"), "A's processor returned quietly");
        assertEquals(1, gates.arrivals(EnginePausePoint.BEFORE_FAILURE_REPORT, task), "A did try its failure report");
        assertEquals(afterSweep2, row(), "A's stale error changed nothing");
        assertEquals(queueFailed, job());
        assertTrue(events.of(COMPLETED, jobId).isEmpty());
        assertEquals(List.of("A"), workersOf(STARTED), "the job never ran again");
    }

    // ---- helpers ---------------------------------------------------------------------------------------

    private void setTask(UUID id) {
        task = id;
        jobId = TaskJobId.of(id, 0).toString();
    }

    /** A TEAM export of the 25 OPEN tickets by a staff member, created and dispatched by the service. */
    private void createExport() {
        setTask(tasks.create(team.staff(), team.id(), TaskRequests.export("TEAM",
                Json.createObjectBuilder().add("status", Json.createArrayBuilder().add("OPEN")).build(), "UTC")).id());
    }

    private static String openTicketsFilter() {
        return TicketFilter.fromJson(Json.createObjectBuilder().add("status", Json.createArrayBuilder().add("OPEN"))
                .build(), "UTC").toJson();
    }

    private BackgroundTask row() {
        return ledger.find(task).orElseThrow();
    }

    private JobRecord job() {
        return queue.getJob(jobId).orElseThrow(() -> new AssertionError("no queue record of " + jobId));
    }

    /** @return the workers that saw each event of this kind of the job, in order */
    private List<String> workersOf(Kind kind) {
        return events.of(kind, jobId).stream().map(Event::worker).toList();
    }

    /** @return the processor events (STARTED, RETURNED, THREW) of the job on one worker, in order */
    private List<Kind> kindsOf(String worker) {
        return events.of(jobId).stream().filter(e -> e.worker().equals(worker))
                .map(Event::kind).filter(k -> k == STARTED || k == RETURNED || k == THREW).toList();
    }
}
