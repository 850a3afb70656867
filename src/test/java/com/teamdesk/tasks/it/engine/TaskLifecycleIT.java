package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.it.TestClock;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.TaskRequests;
import com.teamdesk.tasks.it.support.Tokens;
import com.teamdesk.tasks.queue.JobRecord;
import com.teamdesk.tasks.queue.JobState;
import com.teamdesk.tasks.queue.Queue;
import com.teamdesk.tasks.task.export.ExportPausePoint;
import com.teamdesk.tasks.task.ledger.ExecutionOutcome;
import com.teamdesk.tasks.task.ledger.TaskExecution;
import com.teamdesk.tasks.task.reminder.ReminderPausePoint;
import com.teamdesk.tasks.task.reminder.TicketReminderCancellation;
import com.teamdesk.tasks.task.service.TaskRuns;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.EnginePausePoint;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskStatus;
import jakarta.inject.Inject;
import java.net.URL;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import static com.teamdesk.tasks.it.engine.GatedPausePoints.ANY_TASK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 13 on the production path: the deployed server's own {@code TaskWorker} fetches every job
 * from Redis and runs it on its own threads; tasks are created, cancelled and retried through the
 * production {@code TaskService} (or the HTTP API), and ordering comes from gates at the production
 * pause points ({@link GatedPausePoints}, armed for {@link GatedPausePoints#ANY_TASK} before the
 * task exists). Time rules move the application clock ({@link TestClock}) instead of waiting.
 *
 * <p>R23 cancel (WAITING, scheduled, a paused export, a paused reminder then retry, cancel racing
 * completion in both orders, reconciliation of a cancelled run's queue record), R24 scheduled
 * reminders (dispatched at runAt, not before; closing the ticket cancels them), R26 run timeout.
 *
 * <p>Worker concurrency 1 (so a second job can be kept waiting in Redis behind a paused one),
 * export batches of 10, backoff 30 ms, export timeout 60 s; timers off, so only the worker and the
 * test move rows. Dispatch of scheduled tasks uses the R18 query restricted to the test's task
 * ({@code dispatchNow}) so no other class's rows are handed to this worker.
 */
@ExtendWith(ArquillianExtension.class)
class TaskLifecycleIT extends EngineCase {

    private static final Duration EXPORT_TIMEOUT = Duration.ofSeconds(60);

    @Deployment
    static WebArchive deployment() {
        return deployment(Map.of("teamdesk.task.backoff-ms", "30", "teamdesk.worker.concurrency", "1",
                "teamdesk.export.batch-size", "10",
                "teamdesk.task.export.timeout-ms", String.valueOf(EXPORT_TIMEOUT.toMillis())),
                TaskLifecycleIT.class, TestClock.class);
    }

    @Inject
    TaskRuns runs;
    @Inject
    Queue queue;
    @Inject
    Clock clock;

    @ArquillianResource
    URL url;

    private EngineFixtures.TestTeam team;
    private UUID ticket;
    private ExecutorService client;

    @BeforeEach
    void newTeam() {
        team = fx.newTeam();
        ticket = fx.tickets(team, 1, "Printer on fire").get(0);
        client = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void cleanUp() throws InterruptedException {
        resetGates();
        TestClock.reset();
        client.shutdownNow();
        client.awaitTermination(WAIT_S, TimeUnit.SECONDS);
    }

    // ---- R23 cancel ----

    /**
     * A WAITING task whose job waits in Redis (the only worker slot is held by another task): the
     * cancel removes the queue job; the task is never claimed, even after the worker is free.
     */
    @Test
    void cancellingAWaitingTaskRemovesItsQueueJobAndItIsNeverClaimed() throws Exception {
        var blockerHeld = gates.gate(EnginePausePoint.AFTER_CLAIM, ANY_TASK, 1);
        UUID blocker = createExport();
        assertEquals(blocker, blockerHeld.awaitArrival().taskId());
        UUID waiting = createExport();
        String jobId = TaskJobId.of(waiting, 0).toString();
        assertEquals(JobState.WAITING, queue.getJob(jobId).orElseThrow().state(), "queued behind the paused export");

        BackgroundTask cancelled = runs.cancel(team.staff(), waiting, null).task();
        assertEquals(TaskStatus.CANCELLED, cancelled.status());
        assertEquals(team.staff(), cancelled.cancelledBy());
        assertEquals(TaskRuns.CANCELLED_MESSAGE, cancelled.lastError());
        assertTrue(queue.getJob(jobId).isEmpty(), "the waiting queue job was removed");

        blockerHeld.release();
        awaitStatus(blocker, TaskStatus.COMPLETED);
        assertEquals(0, gates.arrivals(EnginePausePoint.AFTER_CLAIM, waiting), "never claimed");
        assertEquals(cancelled, row(waiting), "the row stays as the cancel left it");
        assertEquals(0, row(waiting).attempts());

        // Idempotent: cancelling again answers the same row; retrying it is a new run (R15 extended).
        assertEquals(cancelled, runs.cancel(team.owner(), waiting, null).task());
        BackgroundTask retried = runs.retry(team.staff(), waiting);
        assertEquals(1, retried.run());
        assertNull(retried.cancelledAt());
        awaitStatus(waiting, TaskStatus.COMPLETED);
        assertTrue(row(waiting).hasResult(), "the new run exported");
    }

    /** A scheduled task is cancelled before it is due; reaching its runAt later dispatches nothing. */
    @Test
    void aCancelledScheduledTaskIsNeverDispatched() throws Exception {
        UUID task = createReminder(clock.instant().plus(Duration.ofHours(1)));
        assertNull(row(task).dispatchedAt(), "scheduled: not handed to the queue");
        BackgroundTask cancelled = runs.cancel(team.owner(), task, null).task();
        assertEquals(TaskStatus.CANCELLED, cancelled.status());

        TestClock.advance(Duration.ofHours(2));
        sweeps.dispatchNow(task);
        assertEquals(cancelled, row(task), "the dispatch query never takes a CANCELLED row");
        assertTrue(queue.getJob(TaskJobId.of(task, 0).toString()).isEmpty());
    }

    /**
     * An export paused after reading its first batch is cancelled; released, it makes no further
     * progress write (its next lease-checked write matches 0 rows, R8/R9): the row stays exactly as
     * the cancel left it, CANCELLED (never FAILED), no CSV. Reconciliation then removes the run's
     * queue record and clears only the dispatch marker.
     */
    @Test
    void aPausedExportCancelledMakesNoFurtherWriteAndReconciliationRemovesItsQueueRecord() throws Exception {
        fx.tickets(team, 35, "Export me");
        var afterBatch = gates.gate(ExportPausePoint.EXPORT_AFTER_BATCH_READ, ANY_TASK, 1);
        UUID task = createExport();
        assertEquals(task, afterBatch.awaitArrival().taskId());
        // a read slower than teamdesk.task.lease-check-ms (1 s: a cold or busy machine) writes progress inside the first
        // batch, before the gate; what counts is what happens after the cancel (a CI run found it)
        int writesBefore = gates.arrivals(EnginePausePoint.AFTER_PROGRESS_WRITE, task);
        int triesBefore = gates.arrivals(EnginePausePoint.BEFORE_PROGRESS_WRITE, task);
        BackgroundTask cancelled = runs.cancel(team.staff(), task, null).task();
        assertEquals(TaskStatus.CANCELLED, cancelled.status());
        assertNull(cancelled.executionId(), "the lease is cleared");
        String jobId = TaskJobId.of(task, 0).toString();
        assertEquals(JobState.ACTIVE, queue.getJob(jobId).orElseThrow().state(), "an active job is left to its execution");
        afterBatch.release();

        JobRecord done = awaitJob(jobId, JobState.COMPLETED); // the execution returned quietly (R9)
        assertEquals(writesBefore, gates.arrivals(EnginePausePoint.AFTER_PROGRESS_WRITE, task),
                "no progress write after the cancel");
        assertEquals(triesBefore + 1, gates.arrivals(EnginePausePoint.BEFORE_PROGRESS_WRITE, task),
                "it tried once and stopped");
        assertEquals(0, done.progress(), "no progress beyond 0 (a write inside the first batch) reached the queue");
        BackgroundTask after = row(task);
        assertEquals(cancelled, after, "the row is exactly as the cancel left it");
        assertFalse(after.hasResult(), "no CSV");

        fx.exec("UPDATE background_task SET cancelled_at = cancelled_at - interval '10 minutes' WHERE id = ?", task);
        sweeps.reconcileCancelled(1000);
        assertTrue(queue.getJob(jobId).isEmpty(), "the cancelled run's queue record is garbage: removed");
        BackgroundTask reconciled = row(task);
        assertNull(reconciled.dispatchedAt());
        assertEquals(TaskStatus.CANCELLED, reconciled.status());
        assertEquals(after.updatedAt(), reconciled.updatedAt(), "only the dispatch marker changed");
        assertEquals(after.lastError(), reconciled.lastError());
    }

    /**
     * A reminder paused inside its transaction after its lease read is cancelled; released, its
     * completion matches 0 rows and the four writes roll back: 0 notifications, 0 events, version
     * unchanged, row CANCELLED as the cancel left it. A retry is run 1 and gives exactly 1/1/+1.
     */
    @Test
    void aReminderCancelledAfterItsLeaseReadCommitsNothingAndItsRetryGivesTheSingleResult() throws Exception {
        var afterRead = gates.gate(ReminderPausePoint.REMINDER_AFTER_LEASE_READ, ANY_TASK, 1);
        UUID task = createReminder(null);
        afterRead.awaitArrival();
        BackgroundTask cancelled = runs.cancel(team.staff2(), task, null).task(); // any staff of the team may cancel
        assertEquals(TaskStatus.CANCELLED, cancelled.status());
        afterRead.release();
        awaitJob(TaskJobId.of(task, 0).toString(), JobState.COMPLETED);
        assertEquals(0, notifications(task));
        assertEquals(0, events(task, "ticket.reminder_sent"));
        assertEquals(1, fx.ticketVersion(ticket));
        assertEquals(cancelled, row(task));

        BackgroundTask retried = runs.retry(team.staff(), task);
        assertEquals(1, retried.run());
        awaitStatus(task, TaskStatus.COMPLETED);
        assertSingleReminder(task, 1);
    }

    /**
     * Cancel racing completion, completion first: the reminder holds its completed row (uncommitted)
     * while the cancel's UPDATE waits on the row lock; after the commit the cancel matches 0 rows and
     * answers 409 task.not_cancellable. The reminder's single result stands.
     */
    @Test
    void cancelRacingCompletionWhenTheCompletionCommitsFirst() throws Exception {
        var completed = gates.gate(ReminderPausePoint.REMINDER_AFTER_COMPLETE, ANY_TASK, 1);
        UUID task = createReminder(null);
        completed.awaitArrival();
        CompletableFuture<Reply> cancel = CompletableFuture.supplyAsync(
                () -> Api.at(url).post("tasks/" + task + "/cancel", Tokens.of(team.staff()), null), client);
        await(() -> fx.count("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                + " AND wait_event_type = 'Lock' AND query LIKE 'UPDATE background_task SET status = ''CANCELLED''%'"
                + " AND application_name = current_setting('application_name')") == 1, // this server's (ServerProcess)
                "the cancel never waited on the completion's row lock");
        completed.release();

        Reply r = cancel.get(WAIT_S, TimeUnit.SECONDS);
        assertEquals(409, r.status(), r.toString());
        assertEquals("task.not_cancellable", r.problemCode().orElse(null));
        awaitStatus(task, TaskStatus.COMPLETED);
        assertSingleReminder(task, 1);
        assertNull(row(task).cancelledAt(), "never both");
    }

    /**
     * Cancel racing completion, cancel first: the reminder is paused before its completion; the
     * cancel commits; the completion matches 0 rows and everything rolls back.
     */
    @Test
    void cancelRacingCompletionWhenTheCancelCommitsFirst() throws Exception {
        var beforeComplete = gates.gate(ReminderPausePoint.REMINDER_BEFORE_COMPLETE, ANY_TASK, 1);
        UUID task = createReminder(null);
        beforeComplete.awaitArrival();
        Reply r = Api.at(url).post("tasks/" + task + "/cancel", Tokens.of(team.owner()), null);
        assertEquals(200, r.status(), r.toString());
        assertEquals("CANCELLED", r.json().getString("status"));
        BackgroundTask cancelled = row(task);
        beforeComplete.release();

        awaitJob(TaskJobId.of(task, 0).toString(), JobState.COMPLETED);
        assertEquals(0, notifications(task), "never both");
        assertEquals(0, events(task, "ticket.reminder_sent"));
        assertEquals(1, fx.ticketVersion(ticket));
        assertEquals(cancelled, row(task));
        Reply again = Api.at(url).post("tasks/" + task + "/cancel", Tokens.of(team.staff()), null);
        assertEquals(200, again.status(), "cancelling a CANCELLED task is idempotent: " + again);
        assertEquals(cancelled, row(task));
    }

    // ---- R24 scheduled ----

    /**
     * A reminder scheduled an hour ahead (given in Asia/Shanghai time) waits undispatched and is
     * listed as scheduled; the R18 dispatch does not take it a minute before its runAt, takes it at
     * runAt, and the production worker then gives the single result.
     */
    @Test
    void aScheduledReminderIsDispatchedAtItsRunAtAndNotBefore() throws Exception {
        Instant runAt = clock.instant().plus(Duration.ofHours(1)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        UUID task = createReminder(runAt);
        BackgroundTask waiting = row(task);
        assertEquals(TaskStatus.WAITING, waiting.status());
        assertEquals(runAt, waiting.runAt());
        assertNull(waiting.dispatchedAt());
        assertEquals(List.of(task), scheduledIds(true));

        TestClock.advance(Duration.ofMinutes(59));
        sweeps.dispatchNow(task);
        assertNull(row(task).dispatchedAt(), "not before runAt");
        assertTrue(queue.getJob(TaskJobId.of(task, 0).toString()).isEmpty());

        TestClock.advance(Duration.ofMinutes(2));
        assertEquals(List.of(), scheduledIds(true), "due: no longer listed as scheduled");
        sweeps.dispatchNow(task);
        assertNotNull(row(task).dispatchedAt(), "dispatched once due");
        awaitStatus(task, TaskStatus.COMPLETED);
        assertSingleReminder(task, 1);
    }

    /**
     * Closing the ticket (PATCH status CLOSED over HTTP) cancels its scheduled reminder in the same
     * transaction, with a system event; at runAt nothing is dispatched.
     */
    @Test
    void closingTheTicketCancelsItsScheduledReminder() throws Exception {
        UUID task = createReminder(clock.instant().plus(Duration.ofHours(3)));
        Reply patched = Api.at(url).patch("teams/" + team.id() + "/tickets/" + ticket, Tokens.of(team.staff()), "*",
                "{\"status\":\"CLOSED\"}");
        assertEquals(200, patched.status(), patched.toString());
        BackgroundTask cancelled = row(task);
        assertEquals(TaskStatus.CANCELLED, cancelled.status());
        assertEquals(TicketReminderCancellation.MESSAGE, cancelled.lastError());
        assertEquals(team.staff(), cancelled.cancelledBy());
        assertEquals(1, events(task, TicketReminderCancellation.EVENT_KIND), "a system event says so");

        TestClock.advance(Duration.ofHours(4));
        sweeps.dispatchNow(task);
        assertEquals(cancelled, row(task));
        assertEquals(0, notifications(task));
    }

    // ---- R26 run timeout ----

    /**
     * An export held at a gate past its 60 s run timeout (the clock moved, no waiting) stops at its
     * next lease-checked write: the attempt counts as a transient failure with a lastError saying it
     * took too long, the queue retries it, and the second attempt completes.
     */
    @Test
    void anExportPastItsRunTimeoutStopsAndIsRetried() throws Exception {
        fx.tickets(team, 15, "Slow export");
        var afterBatch = gates.gate(ExportPausePoint.EXPORT_AFTER_BATCH_READ, ANY_TASK, 1);
        var secondClaim = gates.gate(EnginePausePoint.AFTER_CLAIM, ANY_TASK, 2);
        UUID task = createExport();
        afterBatch.awaitArrival();
        TestClock.advance(EXPORT_TIMEOUT.plusSeconds(1));
        afterBatch.release();

        secondClaim.awaitArrival();
        BackgroundTask retrying = row(task);
        assertEquals(2, retrying.attempts(), "the timed-out attempt counted");
        assertTrue(retrying.lastError().contains("took longer than the 1 minute"), retrying.lastError());
        assertEquals(0, gates.arrivals(EnginePausePoint.AFTER_PROGRESS_WRITE, task), "the first attempt wrote no progress");
        secondClaim.release();

        awaitStatus(task, TaskStatus.COMPLETED);
        assertEquals(2, row(task).attempts());
        assertEquals("16 tickets exported", row(task).resultSummary());
        // the queue hears of the completion after the ledger's commit (one loaded run read attemptsMade 1 in between)
        assertEquals(2, awaitJob(TaskJobId.of(task, 0).toString(), JobState.COMPLETED).attemptsMade());
        // R43: the worker's two executions, newest first: COMPLETED, and the first TIMED_OUT with the fixed text
        List<TaskExecution> executions = tasks.executions(team.staff(), task, 10, null).items();
        assertEquals(List.of(ExecutionOutcome.COMPLETED, ExecutionOutcome.TIMED_OUT),
                executions.stream().map(TaskExecution::outcome).toList());
        assertEquals(List.of(2, 1), executions.stream().map(TaskExecution::attempt).toList());
        assertEquals(retrying.lastError(), executions.get(1).cause());
        assertTrue(executions.get(1).duration().compareTo(EXPORT_TIMEOUT) > 0, "claimed, then stopped past the timeout");
    }

    // ---- R25 key expiry ----

    /** The timer's sweep deletes Idempotency-Keys past their 24 h and keeps live ones. */
    @Test
    void theSweepDeletesExpiredIdempotencyKeys() {
        String expired = "x-" + UUID.randomUUID();
        String live = "l-" + UUID.randomUUID();
        String insert = "INSERT INTO idempotency_key (caller_id, idem_key, fingerprint, response_status, task_id, created_at,"
                + " expires_at) VALUES (?, ?, 'f', 202, ?, now() - interval '2 days', now() + make_interval(hours => ?))";
        fx.exec(insert, team.staff(), expired, UUID.randomUUID(), -24);
        fx.exec(insert, team.staff(), live, UUID.randomUUID(), 1);
        sweeps.purgeIdempotencyKeys(1000);
        assertEquals(0, fx.count("SELECT count(*) FROM idempotency_key WHERE idem_key = ?", expired));
        assertEquals(1, fx.count("SELECT count(*) FROM idempotency_key WHERE idem_key = ?", live));
    }

    // ---- helpers ----

    private UUID createExport() {
        return tasks.create(team.staff(), team.id(), TaskRequests.export("TEAM", null, null))
                .id();
    }

    private UUID createReminder(Instant runAt) {
        String at = runAt == null ? null
                : DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(runAt.atZone(ZoneId.of("Asia/Shanghai")));
        return tasks.create(team.staff(), team.id(), TaskRequests.reminder(ticket.toString(),
                "Please look at this", "ASSIGNEE", at)).id();
    }

    private List<UUID> scheduledIds(boolean scheduled) {
        return tasks.list(team.staff(), team.id(), "WAITING", null, String.valueOf(scheduled), 50, null).items().stream()
                .map(BackgroundTask::id).toList();
    }

    private long notifications(UUID task) {
        return fx.count("SELECT count(*) FROM notification WHERE task_id = ?", task);
    }

    private long events(UUID task, String kind) {
        return fx.count("SELECT count(*) FROM system_event WHERE task_id = ? AND kind = ?", task, kind);
    }

    /** The assignee's single notification, one event, version +1, COMPLETED 100 with no lease. */
    private void assertSingleReminder(UUID task, int attempts) {
        assertEquals(1, notifications(task), "one notification to the assignee");
        assertEquals(1, events(task, "ticket.reminder_sent"), "one system event");
        assertEquals(2, fx.ticketVersion(ticket), "version +1");
        BackgroundTask t = row(task);
        assertEquals(TaskStatus.COMPLETED, t.status());
        assertEquals(100, t.progress());
        assertNull(t.executionId());
        assertEquals(attempts, t.attempts());
    }

    private JobRecord awaitJob(String jobId, JobState state) throws InterruptedException {
        await(() -> queue.getJob(jobId).map(j -> j.state() == state).orElse(false), "job " + jobId + " never " + state);
        Optional<JobRecord> j = queue.getJob(jobId);
        return j.orElseThrow();
    }
}
