package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.common.Page;
import com.teamdesk.tasks.it.support.TaskRequests;
import com.teamdesk.tasks.it.support.TestDeployments;
import com.teamdesk.tasks.task.admin.AdminService;
import com.teamdesk.tasks.task.admin.AdminViews.AdminExecution;
import com.teamdesk.tasks.task.admin.AdminViews.OutcomeCount;
import com.teamdesk.tasks.task.engine.TaskProcessor;
import com.teamdesk.tasks.task.export.ExportPausePoint;
import com.teamdesk.tasks.task.ledger.ExecutionOutcome;
import com.teamdesk.tasks.task.ledger.TaskExecution;
import com.teamdesk.tasks.task.reminder.ReminderRejection;
import com.teamdesk.tasks.task.service.TaskRuns;
import com.teamdesk.tasks.task.service.TaskService;
import com.teamdesk.tasks.task.spi.EnginePausePoint;
import com.teamdesk.tasks.task.spi.TaskRejected;
import com.teamdesk.tasks.task.spi.TaskStatus;
import com.teamdesk.tasks.team.SystemEventRow;
import jakarta.inject.Inject;
import jakarta.json.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.eclipse.microprofile.metrics.MetricID;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import static com.teamdesk.tasks.it.engine.EngineFixtures.job;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * R43 (issue 32): the execution history, written by the claim and end statements themselves (V13's trigger),
 * in the server against real PostgreSQL, through the production processor with jobs handed in directly (worker
 * and timers off, as in {@link ExportLeaseIT}); ordering comes from gates at the production pause points. Each
 * case reads the history through {@link TaskService#executions}, the member API's service.
 */
@ExtendWith(ArquillianExtension.class)
class ExecutionHistoryIT extends EngineCase {

    @Deployment
    static WebArchive deployment() {
        return deploymentWithoutWorker(Map.of("teamdesk.export.batch-size", "10"), ExecutionHistoryIT.class);
    }

    @Inject
    TaskRuns runs;
    @Inject
    AdminService admin;
    @Inject
    MetricRegistry metrics;

    private EngineFixtures.TestTeam team;
    private UUID ticket;

    @BeforeEach
    void newTeam() {
        team = fx.newTeam();
        ticket = fx.tickets(team, 25, "Ticket").get(0);
    }

    private void export() {
        task = tasks.create(team.staff(), team.id(), TaskRequests.export("TEAM",
                Json.createObjectBuilder().add("status", Json.createArrayBuilder().add("OPEN")).build(), "UTC")).id();
    }

    private void reminder() {
        task = tasks.create(team.staff(), team.id(), TaskRequests.reminder(ticket.toString(), "Please look", "TEAM_STAFF"))
                .id();
    }

    /** The whole history, oldest first (the API's order reversed). */
    private List<TaskExecution> history() {
        List<TaskExecution> oldestFirst = new ArrayList<>(tasks.executions(team.staff(), task, 500, null).items());
        Collections.reverse(oldestFirst);
        return oldestFirst;
    }

    private static void assertEnded(TaskExecution e, int run, int attempt, ExecutionOutcome outcome, String cause) {
        assertEquals(run, e.run(), "run");
        assertEquals(attempt, e.attempt(), "attempt");
        assertEquals(outcome, e.outcome(), "outcome");
        assertEquals(cause, e.cause(), "cause");
        assertNotNull(e.endedAt());
        assertTrue(!e.endedAt().isBefore(e.claimedAt()), "ended after its claim");
    }

    /**
     * The queue's takeover (R7): A pauses after reading a batch, B's claim replaces A's lease. A's entry is
     * closed by B's claim statement as TAKEN_OVER by B; A, resumed, finds its lease gone and changes neither
     * entry (fenced); B completes.
     */
    @Test
    void exportTakenOverWhileStalled() throws Exception {
        export();
        var aPaused = gates.gate(ExportPausePoint.EXPORT_AFTER_BATCH_READ, task, 1);
        var bClaimed = gates.gate(EnginePausePoint.AFTER_CLAIM, task, 2);
        Future<Void> ea = execute(job(task, 0, 0));
        var leaseA = aPaused.awaitArrival();
        List<TaskExecution> open = history();
        assertEquals(1, open.size());
        assertEquals(leaseA.executionId(), open.get(0).executionId());
        assertNull(open.get(0).outcome(), "open while it runs");
        assertNull(open.get(0).duration());

        long takenOver0 = executions("EXPORT", "taken_over");
        long completed0 = executions("EXPORT", "completed");
        Future<Void> eb = execute(job(task, 0, 1));
        var leaseB = bClaimed.awaitArrival();
        List<TaskExecution> afterTakeover = history();
        assertEquals(2, afterTakeover.size());
        TaskExecution a = afterTakeover.get(0);
        assertEnded(a, 0, 1, ExecutionOutcome.TAKEN_OVER, null);
        assertEquals(leaseB.executionId(), a.takenOverBy());
        assertEquals(leaseB.executionId(), afterTakeover.get(1).executionId());
        assertNull(afterTakeover.get(1).outcome());

        aPaused.release();
        join(ea); // LeaseLost: A returns quietly (R9)
        assertEquals(afterTakeover, history(), "the stale execution changed no entry");
        assertEquals(takenOver0 + 1, executions("EXPORT", "taken_over"), "A's lease loss counted as the history says");

        bClaimed.release();
        join(eb);
        List<TaskExecution> done = history();
        assertEquals(a, done.get(0), "A's entry stays as the takeover closed it");
        assertEnded(done.get(1), 0, 2, ExecutionOutcome.COMPLETED, null);
        assertEquals(100, done.get(1).progress());
        assertEquals(TaskStatus.COMPLETED, ledger.find(task).orElseThrow().status());
        assertEquals(completed0 + 1, executions("EXPORT", "completed"));

        // R44: the operator's incident view of this team: A's takeover, B's completion, newest claim first
        String teamId = team.id().toString();
        List<AdminExecution> incident = admin.executions("TAKEN_OVER,STALLED", null, teamId, null, "PT1H", null, null,
                null).items();
        assertEquals(1, incident.size());
        assertEquals(leaseA.executionId(), incident.get(0).executionId());
        assertEquals(leaseB.executionId(), incident.get(0).takenOverBy());
        assertEquals(task, incident.get(0).taskId());
        assertEquals("EXPORT", incident.get(0).kind());
        List<AdminExecution> all = admin.executions(null, null, teamId, "EXPORT", null, null, 1, null).items();
        assertEquals(leaseB.executionId(), all.get(0).executionId(), "newest claim first, one a page");
        var next = admin.executions(null, null, teamId, "EXPORT", null, null, 1,
                admin.executions(null, null, teamId, "EXPORT", null, null, 1, null).nextCursor());
        assertEquals(leaseA.executionId(), next.items().get(0).executionId());
        assertNull(next.nextCursor());
        // the jobs are handed in directly, so no worker id: no distinct worker counted
        assertEquals(List.of(new OutcomeCount("COMPLETED", 1, 0), new OutcomeCount("TAKEN_OVER", 1, 0)),
                admin.executionSummary(null, null, teamId, null, null, null).counts());
        assertEquals(0, admin.executions(null, null, teamId, null, null, done.get(0).claimedAt().toString(), null, null)
                .items().size(), "to: claimed before it");
        assertEquals(2, admin.executions(null, null, teamId, null, done.get(0).claimedAt().toString(), null, null, null)
                .items().size(), "from: ran at or after it");
        for (String[] bad : new String[][] {{"NOPE", null}, {"RUNNING,", null}, {null, "soon"}}) {
            assertThrows(InvalidInputException.class, () -> admin.executions(bad[0], null, teamId, null, bad[1], null,
                    null, null));
        }
        assertThrows(InvalidInputException.class, () -> admin.executionSummary(null, null, teamId, null, "PT1H", "PT2H"));
    }

    /** @return this server's {@code teamdesk_task_executions_total} of a kind and outcome (issue 32) */
    private long executions(String kind, String outcome) {
        return metrics.counter(new MetricID("teamdesk_task_executions", new Tag("kind", kind), new Tag("outcome", outcome)))
                .getCount();
    }

    /**
     * The sweep's recovery (R19) of an execution that stopped writing: its entry is closed as STALLED by the
     * recovery's own statement, the next claim opens a new entry, and the stale execution resumed writes nothing.
     */
    @Test
    void exportRecoveredBySweepIsStalled() throws Exception {
        export();
        var aPaused = gates.gate(ExportPausePoint.EXPORT_AFTER_BATCH_READ, task, 1);
        Future<Void> ea = execute(job(task, 0, 0));
        aPaused.awaitArrival();
        fx.age(task, Duration.ofMinutes(10));
        Instant now = Instant.now();
        assertTrue(ledger.recoverStalled(now.minus(Duration.ofMinutes(5)), 100, now).stream()
                .anyMatch(j -> j.taskId().equals(task)));
        List<TaskExecution> recovered = history();
        assertEquals(1, recovered.size());
        assertEnded(recovered.get(0), 0, 1, ExecutionOutcome.STALLED, null);
        assertNull(recovered.get(0).takenOverBy());

        aPaused.release();
        join(ea);
        assertEquals(recovered, history(), "the stale execution changed no entry");
        join(execute(job(task, 0, 1)));
        List<TaskExecution> done = history();
        assertEquals(2, done.size());
        assertEnded(done.get(1), 0, 2, ExecutionOutcome.COMPLETED, null);
    }

    /**
     * A reminder that fails (transient, then rejected for good) and is retried by a member: one entry per
     * execution, FAILED and REJECTED with the task's fixed texts as causes, then the retry's new run COMPLETED.
     * A later statement of the same transaction never inherits an explicit outcome (the trigger's stamp).
     */
    @Test
    void reminderFailsIsRetriedAndCompletesInANewRun() throws Exception {
        reminder();
        gates.fault(EnginePausePoint.AFTER_CLAIM, task, 1, () -> new IllegalStateException("transient"));
        gates.fault(EnginePausePoint.AFTER_CLAIM, task, 2, () -> new TaskRejected(ReminderRejection.TICKET_GONE, "test"));
        assertThrows(ExecutionException.class, () -> join(execute(job(task, 0, 0))));
        assertThrows(ExecutionException.class, () -> join(execute(job(task, 0, 1))));
        assertEquals(TaskStatus.FAILED, ledger.find(task).orElseThrow().status());
        runs.retry(team.staff(), task);
        join(execute(job(task, 1, 0)));

        List<TaskExecution> h = history();
        assertEquals(3, h.size());
        assertEnded(h.get(0), 0, 1, ExecutionOutcome.FAILED, TaskProcessor.RETRYING_MESSAGE);
        assertEnded(h.get(1), 0, 2, ExecutionOutcome.REJECTED, ReminderRejection.TICKET_GONE.message());
        assertEnded(h.get(2), 1, 1, ExecutionOutcome.COMPLETED, null);
        assertEquals(100, h.get(2).progress());
        // issue 32: the timeline's actions: who retried, into which run
        List<SystemEventRow> actions = tasks.actions(team.staff(), task, null, null).items();
        assertEquals(1, actions.size(), actions.toString());
        assertEquals(TaskService.RETRIED_EVENT, actions.get(0).kind());
        assertEquals(team.staff(), actions.get(0).actorId());
        assertTrue(actions.get(0).payloadJson().replace(" ", "").contains("\"run\":1"), actions.get(0).payloadJson());
        assertThrows(NotFoundException.class, () -> tasks.actions(team.customer(), task, null, null));
    }

    /** A member cancels while the reminder runs: the cancel's statement closes the entry as CANCELLED. */
    @Test
    void cancelDuringARunIsCancelled() throws Exception {
        reminder();
        var paused = gates.gate(EnginePausePoint.AFTER_CLAIM, task, 1);
        Future<Void> e = execute(job(task, 0, 0));
        paused.awaitArrival();
        runs.cancel(team.staff(), task, null);
        paused.release();
        join(e);
        List<TaskExecution> h = history();
        assertEquals(1, h.size());
        assertEnded(h.get(0), 0, 1, ExecutionOutcome.CANCELLED, TaskRuns.CANCELLED_MESSAGE);
        List<SystemEventRow> actions = tasks.actions(team.staff(), task, null, null).items();
        assertEquals(List.of(TaskService.CANCELLED_EVENT), actions.stream().map(SystemEventRow::kind).toList());
        assertEquals(team.staff(), actions.get(0).actorId());
        assertThrows(NotFoundException.class, () -> tasks.actions(team.outsider(), task, null, null));
    }

    /** Keyset pages, newest first; a customer sees no other member's task's executions; bad input is 400. */
    @Test
    void pagesAndVisibility() throws Exception {
        reminder();
        gates.fault(EnginePausePoint.AFTER_CLAIM, task, 1, () -> new IllegalStateException("transient"));
        assertThrows(ExecutionException.class, () -> join(execute(job(task, 0, 0))));
        join(execute(job(task, 0, 1)));

        Page<TaskExecution> first = tasks.executions(team.staff(), task, 1, null);
        assertEquals(1, first.items().size());
        assertEquals(2, first.items().get(0).attempt(), "newest first");
        assertNotNull(first.nextCursor());
        Page<TaskExecution> second = tasks.executions(team.staff(), task, 1, first.nextCursor());
        assertEquals(1, second.items().get(0).attempt());
        assertNull(second.nextCursor());

        assertThrows(NotFoundException.class, () -> tasks.executions(team.customer(), task, null, null));
        assertThrows(NotFoundException.class, () -> tasks.executions(team.outsider(), task, null, null));
        assertThrows(NotFoundException.class, () -> tasks.executions(team.staff(), UUID.randomUUID(), null, null));
        assertThrows(InvalidInputException.class, () -> tasks.executions(team.staff(), task, 0, null));
        assertThrows(InvalidInputException.class, () -> tasks.executions(team.staff(), task, null, "not-a-cursor"));
    }
}
