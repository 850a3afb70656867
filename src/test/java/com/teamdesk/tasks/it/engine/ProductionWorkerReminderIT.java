package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.it.support.Poll;
import com.teamdesk.tasks.it.support.Sweeps;
import com.teamdesk.tasks.it.support.TaskRequests;
import com.teamdesk.tasks.it.support.TestDeployments;
import com.teamdesk.tasks.platform.EnlistmentGuard;
import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.queue.JobState;
import com.teamdesk.tasks.queue.Queue;
import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.task.batch.BatchService;
import com.teamdesk.tasks.task.engine.TaskKinds;
import jakarta.json.JsonObject;
import com.teamdesk.tasks.task.engine.TaskProcessor;
import com.teamdesk.tasks.task.engine.TaskWorker;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.reminder.ReminderPausePoint;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.EnginePausePoint;
import com.teamdesk.tasks.task.spi.Lease;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskStatus;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
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
import static com.teamdesk.tasks.it.engine.GatedPausePoints.ANY_TASK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * R14 on the production path (issue 10): the deployed server's own {@code TaskWorker} fetches the
 * reminder's job from Redis and runs it on its own threads, with the production processor and the
 * production transaction boundary; nothing is handed in by the test. Ordering comes from gates at
 * the production pause points, reached by that worker ({@link GatedPausePoints}, armed for
 * {@link GatedPausePoints#ANY_TASK} because the task is created — and dispatched at once — by
 * production code). Faults are injected from outside the application: a PostgreSQL trigger, or a
 * second execution's claim (what another instance's processor does first).
 *
 * <p>On the code before issue 10 every test here failed: the worker's connections were in auto-commit
 * mode inside the "transaction", so the writes were visible (and the team and ticket locks free)
 * before completion, and a failed or lease-lost completion left them behind.
 *
 * <p>Timers are off so that nothing but the worker and the test moves the rows; backoff is 30 ms.
 */
@ExtendWith(ArquillianExtension.class)
class ProductionWorkerReminderIT extends EngineCase {

    @Deployment
    static WebArchive deployment() {
        return deployment(Map.of("teamdesk.task.backoff-ms", "30"), ProductionWorkerReminderIT.class,
                CdiTransactionalProbe.class);
    }

    @Inject
    Queue queue;
    @Inject
    Clock clock;
    @Inject
    TaskWorker taskWorker;
    @Inject
    Transactions transactions;
    @Inject
    EnlistmentGuard enlistment;
    @Inject
    CdiTransactionalProbe cdiProbe;
    @Inject
    BatchService batches;
    @Inject
    TaskKinds kinds;

    private EngineFixtures.TestTeam team;
    private UUID ticket;
    private String trigger;

    @BeforeEach
    void newTeam() {
        team = fx.newTeam();
        ticket = fx.tickets(team, 1, "Printer on fire").get(0);
    }

    @AfterEach
    void dropTrigger() {
        resetGates(); // no execution is left paused in a transaction that would block the DROP
        if (trigger != null) {
            fx.exec("DROP TRIGGER IF EXISTS " + trigger + " ON background_task");
            fx.exec("DROP FUNCTION IF EXISTS " + trigger + "()");
            fx.exec("DROP SEQUENCE IF EXISTS " + trigger);
        }
    }

    /**
     * The first case: a failure after the event INSERT, before completion — the completion
     * UPDATE raises once (a test-installed trigger). Notification, version and event roll back with
     * it, the attempt is reported (WAITING, lease cleared, retry message), and the next attempt of the
     * production worker gives exactly 3 / 1 / +1 with {@code attempts = 2}.
     */
    @Test
    void aFailureAtCompletionRollsBackAllFourWritesAndTheRetryGivesTheSingleResult() throws Exception {
        failCompletionOnce();
        var reported = gates.gate(EnginePausePoint.BEFORE_FAILURE_REPORT, ANY_TASK, 1);
        var secondClaim = gates.gate(EnginePausePoint.AFTER_CLAIM, ANY_TASK, 2);
        createReminder();

        Lease first = reported.awaitArrival();
        assertEquals(task, first.taskId());
        assertEquals(0, notifications(), "the notifications rolled back with the failed completion");
        assertEquals(0, events(), "the system event rolled back");
        assertEquals(1, fx.ticketVersion(ticket), "the version bump rolled back");
        assertEquals(first.executionId(), row().executionId(), "nothing was committed but the claim");
        reported.release();

        Lease second = secondClaim.awaitArrival();
        BackgroundTask between = row();
        assertEquals(TaskProcessor.RETRYING_MESSAGE, between.lastError(),
                "the failure was reported under the first lease: WAITING with the retry message, lease cleared");
        assertNotEquals(first.executionId(), second.executionId());
        assertEquals(2, between.attempts());
        assertEquals(0, notifications());
        secondClaim.release();

        awaitStatus(TaskStatus.COMPLETED);
        assertSingleResult(2);
    }

    /**
     * The second case: execution A of the production worker is paused inside the
     * transaction (team lock held, lease read) while a second execution claims the run; A then
     * commits nothing. While paused, A's connection is enlisted (auto-commit off), the team row is
     * locked, and A's session is inside a transaction. Recovery and the production worker then give
     * the single result.
     */
    @Test
    void aLeaseTakenOverWhileTheWorkerIsInsideTheTransactionCommitsNothing() throws Exception {
        var aPaused = gates.gate(ReminderPausePoint.REMINDER_AFTER_LEASE_READ, ANY_TASK, 1);
        var autoCommit = gates.probeAutoCommit(ReminderPausePoint.REMINDER_AFTER_LEASE_READ, ANY_TASK, 1);
        createReminder();

        Lease a = aPaused.awaitArrival();
        assertFalse(autoCommit.get(WAIT_S, TimeUnit.SECONDS),
                "inside ReminderTransaction.apply on the production worker the connection is enlisted");
        assertTeamLockedByAnotherTransaction();
        JdbcTaskLedger.Claim b = ledger.claim(task, 0, 1, clock.instant()).orElseThrow(); // as B's processor does
        aPaused.release();

        awaitQueueState(queue, JobState.COMPLETED); // A returned quietly after LeaseLost (R9)
        assertEquals(0, notifications(), "A lost its lease: nothing of its transaction committed");
        assertEquals(0, events());
        assertEquals(1, fx.ticketVersion(ticket));
        BackgroundTask t = row();
        assertEquals(TaskStatus.RUNNING, t.status());
        assertEquals(b.lease().executionId(), t.executionId(), "the row still carries B's lease");
        assertNotEquals(a.executionId(), t.executionId());

        // B dies; R19/R20 heal the run and the production worker runs it again.
        fx.age(task, Duration.ofMinutes(10));
        assertTrue(sweeps.recoverStalled(1000).contains(TaskJobId.of(task, 0)));
        sweeps.dispatchDue(1000);
        awaitStatus(TaskStatus.COMPLETED);
        assertSingleResult(1);
    }

    /**
     * Issue 52 (R52): the same takeover on the only child of a batch, whose end moves the batch's count: A's
     * completion matches no row, so the count stays 0 and nothing of A's transaction commits; after recovery the
     * production worker completes the child once, and that end creates the batch's completion once, which runs.
     */
    @Test
    void aLeaseTakenOverInsideABatchChildsTransactionMovesNoCountAndTheNextEndFinishesTheBatchOnce() throws Exception {
        var aPaused = gates.gate(ReminderPausePoint.REMINDER_AFTER_LEASE_READ, ANY_TASK, 1);
        JsonObject body = Jsons.PROVIDER.createObjectBuilder()
                .add("items", Jsons.PROVIDER.createArrayBuilder().add(Jsons.PROVIDER.createObjectBuilder()
                        .add("kind", "REMINDER").add("ticketId", ticket.toString()).add("message", "Please look at this")
                        .add("recipients", "TEAM_STAFF")))
                .add("completion", Jsons.PROVIDER.createObjectBuilder().add("kind", "BATCH_REPORT")).build();
        UUID batch = batches.create(team.staff(), team.id(), body, kinds.requestFields(), null).batch().id();
        task = (UUID) fx.value("SELECT id FROM background_task WHERE batch_id = ?", batch);

        Lease a = aPaused.awaitArrival();
        assertEquals(task, a.taskId());
        JdbcTaskLedger.Claim b = ledger.claim(task, 0, 1, clock.instant()).orElseThrow(); // as B's processor does
        aPaused.release();
        awaitQueueState(queue, JobState.COMPLETED); // A returned quietly after LeaseLost (R9)
        assertEquals(0, fx.count("SELECT completed + failed + cancelled FROM task_batch WHERE id = ?", batch),
                "A's completion matched no row: the batch's count did not move");
        assertEquals(0, fx.count("SELECT count(*) FROM background_task WHERE completes_batch = ?", batch));
        assertEquals(0, notifications());
        assertEquals(b.lease().executionId(), row().executionId(), "the row still carries B's lease");

        fx.age(task, Duration.ofMinutes(10)); // B dies; R19/R20 heal the run and the production worker runs it again
        assertTrue(sweeps.recoverStalled(1000).contains(TaskJobId.of(task, 0)));
        sweeps.dispatchDue(1000);
        awaitStatus(TaskStatus.COMPLETED);
        assertSingleResult(1);
        Poll.until(() -> fx.count("SELECT count(*) FROM background_task WHERE completes_batch = ? AND status = 'COMPLETED'",
                batch) == 1, Duration.ofSeconds(30), "the batch's completion COMPLETED");
        UUID completion = (UUID) fx.value("SELECT id FROM background_task WHERE completes_batch = ?", batch);
        assertEquals(1, fx.count("SELECT completed FROM task_batch WHERE id = ?", batch), "counted once");
        assertEquals(1, fx.count("SELECT count(*) FROM background_task WHERE completes_batch = ?", batch));
        assertEquals(1, fx.count("SELECT count(*) FROM notification WHERE task_id = ?", completion), "one report");
    }

    /**
     * The guard of issue 10: on the production worker, after the event INSERT and before completion,
     * the writes are invisible to other sessions, the ticket row is locked, and the connection is not
     * in auto-commit mode. Then the run completes with the single result.
     */
    @Test
    void insideTheReminderTransactionOnTheProductionWorkerTheWritesAreUncommittedAndLocksHeld() throws Exception {
        var afterEvent = gates.gate(ReminderPausePoint.REMINDER_AFTER_EVENT_INSERT, ANY_TASK, 1);
        var autoCommit = gates.probeAutoCommit(ReminderPausePoint.REMINDER_AFTER_EVENT_INSERT, ANY_TASK, 1);
        createReminder();

        afterEvent.awaitArrival();
        assertFalse(autoCommit.get(WAIT_S, TimeUnit.SECONDS), "the connection inside apply is enlisted");
        assertEquals(0, notifications(), "the notification INSERT is not visible before the commit");
        assertEquals(0, events(), "the event INSERT is not visible before the commit");
        assertEquals(1, fx.ticketVersion(ticket), "the version bump is not visible before the commit");
        assertTeamLockedByAnotherTransaction();
        RuntimeException locked = assertThrows(RuntimeException.class,
                () -> fx.exec("SELECT 1 FROM ticket WHERE id = ? FOR UPDATE NOWAIT", ticket));
        assertTrue(locked.getMessage().contains("lock"), "the ticket row is locked: " + locked.getMessage());
        assertEquals(1, fx.count("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                + " AND pid <> pg_backend_pid() AND backend_xid IS NOT NULL AND state IN ('idle in transaction', 'active')"
                + " AND application_name = current_setting('application_name')" // this server's (ServerProcess)
                + " AND query LIKE 'INSERT INTO system_event%'"), "the worker's session is inside a transaction");
        afterEvent.release();

        awaitStatus(TaskStatus.COMPLETED);
        assertSingleResult(1);
    }

    /**
     * The platform fact behind issue 10, kept as a regression test of Payara itself: on the worker's own
     * threads a CDI {@code @Transactional} transaction enlists no connection (auto-commit), while the
     * production boundary ({@code Transactions}, an EJB REQUIRES_NEW method) does; on a request thread
     * both do. The guard sees the difference, and the worker's startup probe passed. If Payara ever
     * changes the first line, docs/platform.md needs a new look.
     */
    @Test
    void onWorkerThreadsOnlyTheEjbBoundaryEnlistsAndTheGuardSeesIt() throws Exception {
        assertFalse(taskWorker.submit(cdiProbe::enlistedInsideCdiTransaction).get(WAIT_S, TimeUnit.SECONDS),
                "platform fact: a CDI @Transactional on a worker thread leaves its connections in auto-commit");
        assertTrue(taskWorker.submit(() -> transactions.inNewTransaction(TxSite.WORKER, enlistment::connectionEnlisted))
                .get(WAIT_S, TimeUnit.SECONDS), "the production boundary enlists on a worker thread");
        assertTrue(cdiProbe.enlistedInsideCdiTransaction(), "on a request thread CDI @Transactional enlists");
        assertEquals(EnlistmentGuard.Verdict.ENLISTED, enlistment.verdict(TxSite.WORKER), "the startup probe passed");
    }

    // ---- helpers ----

    private void createReminder() {
        task = tasks.create(team.staff(), team.id(),
                TaskRequests.reminder(ticket.toString(), "Please look at this", "TEAM_STAFF"))
                .id();
    }

    /** Installs a trigger that makes the first COMPLETED update of a task of this team raise (a sequence is not transactional). */
    private void failCompletionOnce() {
        trigger = "it_fault_" + team.id().toString().replace("-", "").substring(0, 16);
        fx.exec("CREATE SEQUENCE " + trigger);
        fx.exec("CREATE FUNCTION " + trigger + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                + " IF nextval('" + trigger + "') = 1 THEN RAISE EXCEPTION 'injected fault: completion of %', NEW.id;"
                + " END IF; RETURN NEW; END $$");
        fx.exec("CREATE TRIGGER " + trigger + " BEFORE UPDATE ON background_task FOR EACH ROW WHEN (NEW.team_id = '"
                + team.id() + "' AND NEW.status = 'COMPLETED') EXECUTE FUNCTION " + trigger + "()");
    }

    private void assertTeamLockedByAnotherTransaction() {
        RuntimeException e = assertThrows(RuntimeException.class,
                () -> fx.exec("SELECT 1 FROM team WHERE id = ? FOR NO KEY UPDATE NOWAIT", team.id()),
                "the team lock is held by the worker's open transaction");
        assertTrue(e.getMessage().contains("lock"), e.getMessage());
    }

    /** 3 staff-or-owner recipients, 1 event, version 1 → 2, COMPLETED 100 with no lease. */
    private void assertSingleResult(int attempts) {
        fx.assertSingleReminderResult(row(), ticket, attempts);
    }
}
