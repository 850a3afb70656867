package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.it.support.Sweeps;
import com.teamdesk.tasks.it.support.TaskRequests;
import com.teamdesk.tasks.it.support.TestDeployments;
import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.task.engine.TaskProcessor;
import com.teamdesk.tasks.task.reminder.ReminderParams;
import com.teamdesk.tasks.task.reminder.ReminderPausePoint;
import com.teamdesk.tasks.task.reminder.ReminderTransaction;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.EnginePausePoint;
import com.teamdesk.tasks.task.spi.Execution;
import com.teamdesk.tasks.task.spi.Lease;
import com.teamdesk.tasks.task.spi.LeaseLost;
import com.teamdesk.tasks.task.spi.TaskStatus;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import static com.teamdesk.tasks.it.engine.EngineFixtures.job;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * R14 / T2 (reminder half), in the server against real PostgreSQL: the reminder's notification,
 * ticket version bump, system event and task completion commit together only while the execution
 * holds its lease. Executions are the production processor with jobs handed in directly; the
 * worker and timers are off in this deployment so nothing else touches the rows. Ordering comes
 * from gates at the production pause points; waits are bounded only to detect a missing sync point.
 */
@ExtendWith(ArquillianExtension.class)
class ReminderLeaseIT extends EngineCase {

    @Deployment
    static WebArchive deployment() {
        return deploymentWithoutWorker(Map.of(), ReminderLeaseIT.class, ReturningReminderTransaction.class);
    }

    @Inject
    ReminderTransaction reminderTx;
    @Inject
    ReturningReminderTransaction returningTx;
    @Inject
    Transactions transactions;
    @Inject
    Clock clock;

    private EngineFixtures.TestTeam team;
    private UUID ticket;

    @BeforeEach
    void newReminder() {
        team = fx.newTeam();
        ticket = fx.tickets(team, 1, "Printer on fire").get(0);
        task = tasks.create(team.staff(), team.id(),
                TaskRequests.reminder(ticket.toString(), "Please look at this", "TEAM_STAFF"))
                .id();
    }

    /** 3 staff-or-owner recipients, 1 event, version 1 → 2, COMPLETED 100 with no lease. */
    private void assertSingleResult(int attempts) {
        fx.assertSingleReminderResult(row(), ticket, attempts);
    }

    /** Every case ends here: one more delivery of the same job adds nothing to a completed task. */
    private void assertReplayAddsNothing(int attemptsMade) throws Exception {
        BackgroundTask before = row();
        RecordingJob again = job(task, 0, attemptsMade);
        join(execute(again));
        assertEquals(before, row());
        assertEquals(3, notifications());
        assertEquals(1, events());
        assertEquals(2, fx.ticketVersion(ticket));
        assertTrue(again.reported().isEmpty(), "a skipped claim reports nothing to the queue");
    }

    @Test
    void newExecutionTakesOverWhileAIsPausedAfterItsLeaseRead() throws Exception {
        var aPaused = gates.gate(ReminderPausePoint.REMINDER_AFTER_LEASE_READ, task, 1);
        var bClaimed = gates.gate(EnginePausePoint.AFTER_CLAIM, task, 2);
        RecordingJob a = job(task, 0, 0);
        RecordingJob b = job(task, 0, 1);
        try {
            Future<Void> ea = execute(a);
            Lease leaseA = aPaused.awaitArrival();
            Future<Void> eb = execute(b);
            Lease leaseB = bClaimed.awaitArrival();
            assertNotEquals(leaseA.executionId(), leaseB.executionId());
            BackgroundTask takeover = row();
            assertEquals(leaseB.executionId(), takeover.executionId());

            aPaused.release();
            join(ea); // A returns normally: LeaseLost is not a failure (R9)
            assertEquals(0, notifications());
            assertEquals(0, events());
            assertEquals(1, fx.ticketVersion(ticket));
            assertEquals(takeover, row(), "A changed nothing: the row is still exactly B's lease");
            assertTrue(a.reported().isEmpty(), "A reported no progress 100");
            // R43: A's lease was lost at its completion; its entry is the one B's claim closed
            assertEquals("TAKEN_OVER>" + leaseB.executionId() + ",OPEN>", executions());

            bClaimed.release();
            join(eb);
            assertSingleResult(2);
            assertEquals(java.util.List.of(100), b.reported());
            assertEquals("TAKEN_OVER>" + leaseB.executionId() + ",COMPLETED>", executions());
        } finally {
            gates.reset(task);
        }
        assertReplayAddsNothing(2);
    }

    @Test
    void recoveryClearsTheLeaseWhileAIsPaused() throws Exception {
        var aPaused = gates.gate(ReminderPausePoint.REMINDER_AFTER_LEASE_READ, task, 1);
        RecordingJob a = job(task, 0, 0);
        try {
            Future<Void> ea = execute(a);
            aPaused.awaitArrival();
            // Compress the 2-minute clock: age this row, then run the real recovery sweep (R19).
            fx.age(task, Duration.ofMinutes(10));
            assertTrue(sweeps.recoverStalled(1000).stream().anyMatch(j -> j.taskId().equals(task)));
            aPaused.release();
            join(ea);
            BackgroundTask t = row();
            assertEquals(TaskStatus.WAITING, t.status());
            assertNull(t.executionId());
            assertNull(t.dispatchedAt());
            assertEquals(0, notifications());
            assertEquals(0, events());
            assertEquals(1, fx.ticketVersion(ticket));
            assertTrue(a.reported().isEmpty());
        } finally {
            gates.reset(task);
        }
        join(execute(job(task, 0, 1)));
        assertSingleResult(2);
        assertEquals("STALLED>,COMPLETED>", executions(), "R43: the sweep's statement closed A's entry");
        assertReplayAddsNothing(2);
    }

    @Test
    void failureAfterTheEventInsertRollsBackAllFourWrites() throws Exception {
        gates.fault(ReminderPausePoint.REMINDER_AFTER_EVENT_INSERT, task, 1, () -> new IllegalStateException("injected"));
        ExecutionException thrown = assertThrows(ExecutionException.class, () -> join(execute(job(task, 0, 0))));
        assertInstanceOf(IllegalStateException.class, thrown.getCause(), "transient: rethrown so the queue retries");
        assertEquals(0, notifications());
        assertEquals(0, events());
        assertEquals(1, fx.ticketVersion(ticket));
        BackgroundTask t = row();
        assertEquals(TaskStatus.WAITING, t.status());
        assertNull(t.executionId());
        assertEquals(1, t.attempts());
        assertEquals(TaskProcessor.RETRYING_MESSAGE, t.lastError());

        join(execute(job(task, 0, 1)));
        assertSingleResult(2);
        assertNull(row().lastError());
        assertReplayAddsNothing(2);
    }

    @Test
    void whenACommitsFirstBsClaimWaitsThenSeesCompleted() throws Exception {
        var aCompleted = gates.gate(ReminderPausePoint.REMINDER_AFTER_COMPLETE, task, 1);
        RecordingJob b = job(task, 0, 1);
        int pastClaim;
        try {
            Future<Void> ea = execute(job(task, 0, 0));
            aCompleted.awaitArrival(); // A's completion UPDATE matched; its row lock is held until commit
            Future<Void> eb = execute(b);
            awaitClaimBlockedOnRowLock();
            aCompleted.release();
            join(ea);
            join(eb);
            pastClaim = gates.arrivals(EnginePausePoint.AFTER_CLAIM, task);
        } finally {
            gates.reset(task);
        }
        assertSingleResult(1);
        assertTrue(b.reported().isEmpty(), "B exited at claim with no side effect");
        assertEquals(1, pastClaim, "only A got past the claim");
        assertEquals("COMPLETED>", executions(), "R43: B's claim matched no row, so it was no execution");
        assertReplayAddsNothing(2);
    }

    /** R43: the task's executions, oldest first: {@code outcome>takenOverBy}, comma-separated, OPEN while running. */
    private String executions() {
        return (String) fx.value("SELECT string_agg(coalesce(outcome, 'OPEN') || '>' || coalesce(taken_over_by::text, ''),"
                + " ',' ORDER BY claimed_at, attempt) FROM task_execution WHERE task_id = ?", task);
    }

    @Test
    void aVariantThatReturnsInsteadOfThrowingWouldCommitTheSideEffects() throws Exception {
        assertEquals(0, sideEffectsWhenLeaseLostAfterLeaseRead(reminderTx, LeaseLost.class),
                "production: LeaseLost thrown out of the transaction rolls all of it back");
        assertEquals(1, fx.ticketVersion(ticket));

        newReminder();
        assertEquals(3, sideEffectsWhenLeaseLostAfterLeaseRead(returningTx, null),
                "the returning variant commits the notifications of a lost lease: the check above would fail");
        assertEquals(1, events());
        assertEquals(2, fx.ticketVersion(ticket));
        assertEquals(TaskStatus.RUNNING, row().status(), "while the task itself was never completed");
    }

    /**
     * Runs {@code tx} for execution A, pauses it after its lease read, lets B take over, releases A.
     *
     * @param expected the exception A must end with, or null for a normal return
     * @return notifications of the task afterwards
     */
    private long sideEffectsWhenLeaseLostAfterLeaseRead(ReminderTransaction tx, Class<? extends Throwable> expected)
            throws Exception {
        ReminderParams params = ReminderParams.fromJson(row().params());
        Lease a = ledger.claim(task, 0, 0, clock.instant()).orElseThrow().lease();
        BackgroundTask asClaimed = row();
        var aPaused = gates.gate(ReminderPausePoint.REMINDER_AFTER_LEASE_READ, task, 1);
        try {
            Future<Integer> ea = fx.start(() -> transactions.inNewTransaction(TxSite.WORKER,
                    () -> tx.apply(new Execution(asClaimed, a, job(task, 0, 0), ledger, clock, gates), params)));
            aPaused.awaitArrival();
            ledger.claim(task, 0, 1, clock.instant()).orElseThrow(); // B takes over after A's lease read
            aPaused.release();
            if (expected == null) {
                join(ea);
            } else {
                assertInstanceOf(expected, assertThrows(ExecutionException.class, () -> join(ea)).getCause());
            }
        } finally {
            gates.reset(task);
        }
        return notifications();
    }

    /** Detects (bounded) the sync point "B's claim UPDATE waits on A's row lock" in pg_stat_activity. */
    private void awaitClaimBlockedOnRowLock() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GatedPausePoints.MAX_WAIT_S);
        while (fx.count("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                + " AND application_name = current_setting('application_name')" // this server's (ServerProcess)
                + " AND query LIKE 'UPDATE background_task SET status = ''RUNNING''%'") == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("B's claim never waited on A's row lock");
            }
            Thread.onSpinWait();
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }
}
