package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.common.ConflictException;
import com.teamdesk.tasks.common.ForbiddenException;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.it.support.TaskRequests;
import com.teamdesk.tasks.it.support.TestDeployments;
import com.teamdesk.tasks.queue.UnrecoverableJobException;
import com.teamdesk.tasks.task.engine.TaskProcessor;
import com.teamdesk.tasks.task.export.ExportPausePoint;
import com.teamdesk.tasks.task.export.ExportRejection;
import com.teamdesk.tasks.task.export.ExportResultStore;
import com.teamdesk.tasks.task.service.TaskRuns;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.CoreRejection;
import com.teamdesk.tasks.task.spi.EnginePausePoint;
import com.teamdesk.tasks.task.spi.PausePoint;
import com.teamdesk.tasks.task.spi.TaskRejected;
import com.teamdesk.tasks.task.spi.TaskStatus;
import jakarta.inject.Inject;
import jakarta.json.Json;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import static com.teamdesk.tasks.it.engine.EngineFixtures.job;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * T1 and the export half of T2, plus R9-R12 and R15-R17 on the service layer, in the server against
 * real PostgreSQL. Executions are the production processor with jobs handed in directly (the worker
 * and timers are off here); ordering comes from gates at the production pause points. Small
 * export settings (batch 10, limit 40 rows) make several batches and an over-limit case cheap; chunks
 * of 512 bytes make every export's CSV several stored chunks (issue 16).
 */
@ExtendWith(ArquillianExtension.class)
class ExportLeaseIT extends EngineCase {

    @Deployment
    static WebArchive deployment() {
        return deploymentWithoutWorker(Map.of("teamdesk.export.batch-size", "10", "teamdesk.export.max-rows", "40",
                "teamdesk.export.chunk-bytes", "512"), ExportLeaseIT.class);
    }

    @Inject
    TaskRuns runs;
    @Inject
    ExportResultStore store;

    private EngineFixtures.TestTeam team;
    private List<UUID> tickets;

    @BeforeEach
    void newTeamWithTickets() {
        team = fx.newTeam();
        tickets = fx.tickets(team, 25, "Ticket");
    }

    private UUID export(UUID owner, String scope) {
        task = tasks.create(owner, team.id(), TaskRequests.export(scope,
                Json.createObjectBuilder().add("status", Json.createArrayBuilder().add("OPEN")).build(), "Asia/Shanghai")).id();
        return task;
    }

    /** The stored CSV as the download streams it, checked against the row's size and SHA-256. */
    private String csv() throws Exception {
        ExportResultStore.StoredResult stored = store.storedResult(task).orElseThrow();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        store.writeResult(stored, out);
        byte[] bytes = out.toByteArray();
        assertEquals(stored.size(), bytes.length);
        assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)), stored.sha256());
        assertEquals(stored.sha256(), row().resultDigest());
        assertEquals(stored.size(), row().resultBytes());
        assertEquals(0, fx.count("SELECT count(*) FROM task_result_chunk WHERE task_id = ? AND execution_id <> ?", task,
                stored.executionId()), "only the result's chunks are left");
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static Throwable failure(Future<?> f) {
        return assertThrows(ExecutionException.class, () -> join(f)).getCause();
    }

    private void assertCompletedWith(int rows, int run, int attempts) throws Exception {
        BackgroundTask t = row();
        assertEquals(TaskStatus.COMPLETED, t.status());
        assertEquals(100, t.progress());
        assertNull(t.executionId());
        assertNull(t.lastError());
        assertEquals(run, t.run());
        assertEquals(attempts, t.attempts());
        assertEquals(rows + " tickets exported", t.resultSummary());
        assertNotNull(t.expiresAt());
        assertEquals(rows + 1, csv().split("\r\n").length, "header + one line per ticket");
    }

    /** Replaying the same job on a finished task changes nothing (R7, R12). */
    private void assertReplayChangesNothing(int run, int attemptsMade) throws Exception {
        BackgroundTask before = row();
        RecordingJob again = job(task, run, attemptsMade);
        join(execute(again));
        assertEquals(before, row());
        assertTrue(again.reported().isEmpty());
    }

    @Test
    void t1FailingProgressWriteThenManualRetry() throws Exception {
        export(team.staff(), "TEAM");
        for (int attempt = 1; attempt <= 3; attempt++) {
            gates.fault(EnginePausePoint.BEFORE_PROGRESS_WRITE, task, attempt, () -> new IllegalStateException("progress write failed"));
        }
        TaskStatus[] expected = {TaskStatus.WAITING, TaskStatus.WAITING, TaskStatus.FAILED};
        for (int attemptsMade = 0; attemptsMade < 3; attemptsMade++) {
            Throwable thrown = failure(execute(job(task, 0, attemptsMade)));
            BackgroundTask t = row();
            assertEquals(expected[attemptsMade], t.status(), "after attemptsMade " + attemptsMade);
            assertEquals(attemptsMade + 1, t.attempts(), "attempts = attemptsMade + 1 (R3)");
            assertNull(t.resultDigest(), "no CSV");
            assertNull(t.executionId());
            if (attemptsMade < 2) {
                assertInstanceOf(IllegalStateException.class, thrown, "transient: rethrown for the queue to retry");
                assertEquals(TaskProcessor.RETRYING_MESSAGE, t.lastError());
            } else {
                assertInstanceOf(UnrecoverableJobException.class, thrown, "final: the queue must not retry");
                assertEquals("Failed after 3 attempts because of an internal error.", t.lastError());
            }
        }
        BackgroundTask retried = runs.retry(team.staff(), task);
        assertEquals(1, retried.run());
        assertEquals(TaskStatus.WAITING, retried.status());
        join(execute(job(task, 1, 0)));
        assertCompletedWith(25, 1, 1);
        assertReplayChangesNothing(1, 1);
    }

    @Test
    void retryResetsEveryFieldOfR16AndTheOldRunsJobReturnsAtClaim() throws Exception {
        export(team.staff(), "TEAM");
        gates.fault(EnginePausePoint.AFTER_CLAIM, task, 1, () -> new TaskRejected(ExportRejection.INVALID_FILTERS, "test"));
        assertInstanceOf(UnrecoverableJobException.class, failure(execute(job(task, 0, 0))));
        BackgroundTask failed = row();
        assertEquals(TaskStatus.FAILED, failed.status());
        assertEquals(ExportRejection.INVALID_FILTERS.message(), failed.lastError());

        BackgroundTask r = runs.retry(team.owner(), task);
        assertEquals(1, r.run());
        assertEquals(TaskStatus.WAITING, r.status());
        assertEquals(0, r.progress());
        assertEquals(0, r.attempts());
        assertNull(r.lastError());
        assertNull(r.executionId());
        assertNull(r.resultDigest());
        assertNull(r.resultSummary());
        assertNull(r.expiresAt());
        assertFalse(r.runAt().isBefore(failed.updatedAt()), "runAt = now");
        assertEquals(List.of(failed.id(), failed.ownerId(), failed.teamId(), failed.kind(), failed.params(), failed.scope()),
                List.of(r.id(), r.ownerId(), r.teamId(), r.kind(), r.params(), r.scope()), "kept as they were");

        BackgroundTask waiting = row();
        join(execute(job(task, 0, 1))); // R17: a message of the old run returns at claim
        assertEquals(waiting, row(), "still WAITING at run 1, untouched");
        join(execute(job(task, 1, 0)));
        assertCompletedWith(25, 1, 1);
    }

    @Test
    void retryRefusals() throws Exception {
        export(team.staff(), "TEAM");
        assertEquals("task.not_failed",
                assertThrows(ConflictException.class, () -> runs.retry(team.staff(), task)).code(), "WAITING");
        join(execute(job(task, 0, 0)));
        assertEquals("task.not_failed",
                assertThrows(ConflictException.class, () -> runs.retry(team.staff(), task)).code(), "COMPLETED");

        UUID failedTeamExport = export(team.staff(), "TEAM");
        fx.exec("UPDATE background_task SET status = 'FAILED', last_error = 'x' WHERE id = ?", failedTeamExport);
        assertThrows(NotFoundException.class, () -> runs.retry(team.outsider(), failedTeamExport), "non-member");
        assertThrows(NotFoundException.class, () -> runs.retry(team.customer(), failedTeamExport),
                "a customer cannot see another member's task");
        fx.setRole(team.id(), team.staff(), "CUSTOMER");
        assertEquals("task.permission_lost",
                assertThrows(ForbiddenException.class, () -> runs.retry(team.owner(), failedTeamExport)).code(),
                "TEAM export whose creator is now a CUSTOMER");
        assertEquals(TaskStatus.FAILED, ledger.find(failedTeamExport).orElseThrow().status(), "refusal changed nothing");
        fx.setRole(team.id(), team.staff(), "STAFF");
        assertEquals(1, runs.retry(team.owner(), failedTeamExport).run(), "staff again: retry accepted");
    }

    @Test
    void overLimitFailsAgainAfterRetryWithTheSameRejection() throws Exception {
        fx.tickets(team, 20, "More"); // 45 OPEN tickets > limit 40
        export(team.staff(), "TEAM");
        assertInstanceOf(UnrecoverableJobException.class, failure(execute(job(task, 0, 0))));
        assertEquals(TaskStatus.FAILED, row().status());
        assertEquals(ExportRejection.TOO_LARGE.message(), row().lastError());
        assertEquals(1, row().attempts(), "rejected at once, no retry");
        runs.retry(team.staff(), task);
        assertInstanceOf(UnrecoverableJobException.class, failure(execute(job(task, 1, 0))));
        assertEquals(TaskStatus.FAILED, row().status());
        assertEquals(1, row().run());
        assertEquals(ExportRejection.TOO_LARGE.message(), row().lastError(), "retry never narrows the filters");
    }

    @Test
    void lostPermissionAtExecutionIsARejectionAndRetryDoesNotRestoreIt() throws Exception {
        export(team.staff(), "TEAM");
        fx.setRole(team.id(), team.staff(), "CUSTOMER");
        assertInstanceOf(UnrecoverableJobException.class, failure(execute(job(task, 0, 0))));
        assertEquals(CoreRejection.PERMISSION_LOST.message(), row().lastError());
        assertThrows(ForbiddenException.class, () -> runs.retry(team.staff(), task));
        assertEquals(0, row().run());
    }

    /**
     * The export maps user ids to usernames itself (no join per row): the team's members in one read, and
     * anyone else — a customer who has left the team, an outsider assigned to a ticket — when first met.
     */
    @Test
    void usernamesOfFormerMembersAndOutsidersAreInTheCsv() throws Exception {
        fx.exec("UPDATE ticket SET assignee_id = ? WHERE id = ?", team.outsider(), tickets.get(3));
        fx.exec("UPDATE ticket SET assignee_id = NULL WHERE id = ?", tickets.get(4));
        fx.exec("DELETE FROM membership WHERE team_id = ? AND user_id = ?", team.id(), team.customer());
        export(team.staff(), "TEAM");
        join(execute(job(task, 0, 0)));
        assertEquals(TaskStatus.COMPLETED, row().status());
        String[] lines = csv().split("\r\n");
        String customer = "customer-" + team.id().toString().substring(0, 8);
        String staff = "staff-" + team.id().toString().substring(0, 8);
        String outsider = "outsider-" + team.id().toString().substring(0, 8);
        assertTrue(lines[1].contains("," + staff + "," + customer + ","), lines[1]);
        assertTrue(java.util.Arrays.stream(lines).anyMatch(l -> l.contains("," + outsider + "," + customer + ",")),
                "the outsider's username as assignee");
        assertTrue(java.util.Arrays.stream(lines).anyMatch(l -> l.contains(",NORMAL,," + customer + ",")),
                "an unassigned ticket: an empty assignee cell");
    }

    /**
     * R13: the permission is re-checked with every batch. The staff member who created a TEAM export is
     * demoted to customer after the first batch: the next batch (whose statement holds the re-check)
     * reads no row, and the check after it turns that into PERMISSION_LOST instead of a CSV cut short.
     */
    @Test
    void ownerDemotedBetweenTwoBatchesFailsTheExportWithNoResult() throws Exception {
        export(team.staff(), "TEAM");
        var firstBatch = gates.gate(ExportPausePoint.EXPORT_AFTER_BATCH_READ, task, 1);
        RecordingJob a = job(task, 0, 0);
        Future<Void> ea = execute(a);
        firstBatch.awaitArrival();
        fx.setRole(team.id(), team.staff(), "CUSTOMER");
        firstBatch.release();
        assertInstanceOf(UnrecoverableJobException.class, failure(ea));
        BackgroundTask failed = row();
        assertEquals(TaskStatus.FAILED, failed.status());
        assertEquals(CoreRejection.PERMISSION_LOST.message(), failed.lastError());
        assertNull(failed.resultDigest(), "no CSV");
        assertEquals(0, fx.count("SELECT count(*) FROM task_result_chunk WHERE task_id = ?", task), "no chunk left");
        assertFalse(a.reported().contains(100), "no progress 100");
    }

    @Test
    void t2aTakeoverWhileAIsPausedAfterReadingABatch() throws Exception {
        takeover(ExportPausePoint.EXPORT_AFTER_BATCH_READ);
    }

    @Test
    void t2bTakeoverWhileAIsPausedAfterItsFinalPermissionCheck() throws Exception {
        takeover(ExportPausePoint.EXPORT_BEFORE_RESULT_WRITE);
    }

    /** A pauses at {@code where}; B claims as E2; the data changes; A returns having changed nothing. */
    private void takeover(PausePoint where) throws Exception {
        export(team.staff(), "TEAM");
        var aPaused = gates.gate(where, task, 1);
        var bClaimed = gates.gate(EnginePausePoint.AFTER_CLAIM, task, 2);
        RecordingJob a = job(task, 0, 0);
        RecordingJob b = job(task, 0, 1);
        Future<Void> ea = execute(a);
        var leaseA = aPaused.awaitArrival();
        if (where == ExportPausePoint.EXPORT_BEFORE_RESULT_WRITE) {
            assertTrue(fx.count("SELECT count(*) FROM task_result_chunk WHERE task_id = ? AND execution_id = ?", task,
                    leaseA.executionId()) > 1, "A stored its whole CSV as chunks before the result write");
        }
        Future<Void> eb = execute(b);
        var leaseB = bClaimed.awaitArrival();
        BackgroundTask takeover = row();
        assertEquals(leaseB.executionId(), takeover.executionId());
        assertEquals(0, takeover.progress(), "a new claim resets progress (R10)");
        fx.exec("UPDATE ticket SET title = 'Renamed while A slept' WHERE id = ?", tickets.get(0));

        aPaused.release();
        join(ea); // LeaseLost: A returns normally (R9)
        assertEquals(takeover, row(), "the whole row equals B's takeover snapshot");
        assertFalse(a.reported().contains(100), "A reported no progress 100");
        assertEquals(0, fx.count("SELECT count(*) FROM task_result_chunk WHERE task_id = ? AND execution_id = ?", task,
                leaseA.executionId()), "A dropped the chunks it had stored when it found its lease gone");

        bClaimed.release();
        join(eb);
        assertCompletedWith(25, 0, 2);
        assertTrue(csv().contains("Renamed while A slept"), "the stored CSV is B's");
        assertEquals(100, b.reported().get(b.reported().size() - 1));
        assertReplayChangesNothing(0, 2);
    }

    @Test
    void lateRejectionAfterLosingTheLeaseIsNotReported() throws Exception {
        export(team.staff(), "TEAM");
        // A pauses right after its claim, so that its first step after the takeover is the permission check
        // (after a batch, its next step would be a lease-checked write, which finds the lease gone first).
        var aPaused = gates.gate(EnginePausePoint.AFTER_CLAIM, task, 1);
        var bClaimed = gates.gate(EnginePausePoint.AFTER_CLAIM, task, 2);
        RecordingJob a = job(task, 0, 0);
        Future<Void> ea = execute(a);
        aPaused.awaitArrival();
        Future<Void> eb = execute(job(task, 0, 1));
        bClaimed.awaitArrival();
        BackgroundTask takeover = row();
        fx.setRole(team.id(), team.staff(), "CUSTOMER"); // A's permission check at execution now rejects
        aPaused.release();
        join(ea); // A's FAILED report matched 0 rows: it returns quietly; the queue is not told to fail
        assertEquals(takeover, row(), "B's lease untouched");
        assertEquals(1, gates.arrivals(EnginePausePoint.BEFORE_FAILURE_REPORT, task), "A did try its failure report");
        fx.setRole(team.id(), team.staff(), "STAFF");
        bClaimed.release();
        join(eb);
        assertCompletedWith(25, 0, 2);
    }

    @Test
    void lateTransientErrorAfterLosingTheLeaseIsNotReported() throws Exception {
        export(team.staff(), "TEAM");
        var aPaused = gates.gate(ExportPausePoint.EXPORT_AFTER_BATCH_READ, task, 1);
        gates.fault(ExportPausePoint.EXPORT_AFTER_BATCH_READ, task, 1, () -> new IllegalStateException("read failed"));
        var bClaimed = gates.gate(EnginePausePoint.AFTER_CLAIM, task, 2);
        Future<Void> ea = execute(job(task, 0, 0));
        aPaused.awaitArrival();
        Future<Void> eb = execute(job(task, 0, 1));
        bClaimed.awaitArrival();
        BackgroundTask takeover = row();
        aPaused.release();
        join(ea);
        assertEquals(takeover, row());
        bClaimed.release();
        join(eb);
        assertCompletedWith(25, 0, 2);
    }

    @Test
    void r12CompletedBeforeTheQueueHeardStaysCompleted() throws Exception {
        export(team.owner(), "SELF");
        fx.exec("UPDATE ticket SET requester_id = ? WHERE id = ANY (?)", team.owner(),
                tickets.subList(0, 3).toArray(UUID[]::new));
        RecordingJob a = job(task, 0, 0).failReportsWhere(p -> p == 100);
        join(execute(a)); // the ledger committed COMPLETED; only the final queue report failed
        assertEquals(List.of(100), a.reported().subList(a.reported().size() - 1, a.reported().size()));
        assertCompletedWith(3, 0, 1);
        assertTrue(csv().startsWith("\uFEFFid,title"));
        assertReplayChangesNothing(0, 1);
    }
}
