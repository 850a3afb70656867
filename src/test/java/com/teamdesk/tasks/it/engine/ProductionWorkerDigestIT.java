package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.common.ForbiddenException;
import com.teamdesk.tasks.queue.JobState;
import com.teamdesk.tasks.queue.Queue;
import com.teamdesk.tasks.task.digest.DigestTransaction;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.EnginePausePoint;
import com.teamdesk.tasks.task.spi.Lease;
import com.teamdesk.tasks.task.spi.NewTaskRequest;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.task.spi.TaskStatus;
import jakarta.inject.Inject;
import jakarta.json.Json;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import static com.teamdesk.tasks.it.engine.GatedPausePoints.ANY_TASK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 29's third kind, DIGEST, on the production path as the reminder is tested (R14): the deployed
 * {@code TaskWorker} runs the job from Redis on its own threads inside the production transaction boundary;
 * ordering comes from a gate at the kind-blind pause point {@link EnginePausePoint#BEFORE_COMPLETION}. A digest
 * whose lease is taken over while it is inside its transaction commits nothing; the run, healed by stall
 * recovery, delivers exactly one notification.
 */
@ExtendWith(ArquillianExtension.class)
class ProductionWorkerDigestIT extends EngineCase {

    @Deployment
    static WebArchive deployment() {
        return deployment(Map.of("teamdesk.task.backoff-ms", "30"), ProductionWorkerDigestIT.class);
    }

    @Inject
    Queue queue;
    @Inject
    Clock clock;

    private EngineFixtures.TestTeam team;

    @BeforeEach
    void newTeam() {
        team = fx.newTeam();
        fx.tickets(team, 7, "Digest ticket");
    }

    /** A staff member's TEAM digest: one notification to them naming the 7 open tickets (5 titles + "2 more"). */
    @Test
    void aTeamDigestDeliversOneNotificationToItsOwnerAndCompletes() throws Exception {
        task = tasks.create(team.staff(), team.id(), digest("TEAM")).id();
        awaitStatus(TaskStatus.COMPLETED);
        assertEquals(1, fx.notifications(task));
        assertEquals(1, fx.events(task));
        String message = (String) fx.value("SELECT message FROM notification WHERE task_id = ? AND recipient_id = ?",
                task, team.staff());
        assertTrue(message.startsWith("Team digest: 7 open tickets (oldest first): \"Digest ticket"), message);
        assertTrue(message.endsWith("; and 2 more."), message);
        BackgroundTask t = row();
        assertEquals(100, t.progress());
        assertEquals(null, t.executionId());
        assertEquals(1, t.attempts());
    }

    /** A customer may ask for their own digest, not the team's (403, nothing created). */
    @Test
    void aCustomerGetsTheirOwnDigestButNotTheTeams() throws Exception {
        assertThrows(ForbiddenException.class, () -> tasks.create(team.customer(), team.id(), digest("TEAM")));
        task = tasks.create(team.customer(), team.id(), digest(null)).id();
        assertEquals(TaskScope.SELF, row().scope());
        awaitStatus(TaskStatus.COMPLETED);
        String message = (String) fx.value("SELECT message FROM notification WHERE task_id = ?", task);
        assertTrue(message.startsWith("Your digest: "), message);
    }

    /**
     * Execution A of the production worker is paused inside its transaction (notification and event written,
     * not committed) while a second execution claims the run, as another instance's processor would. A's
     * fenced completion matches nothing: its transaction rolls back, no notification is left. Stall recovery
     * and the production worker then deliver exactly one.
     */
    @Test
    void aLeaseTakenOverInsideTheTransactionCommitsNothingAndTheRunDeliversExactlyOnce() throws Exception {
        var aPaused = gates.gate(EnginePausePoint.BEFORE_COMPLETION, ANY_TASK, 1);
        task = tasks.create(team.staff(), team.id(), digest("TEAM")).id();

        Lease a = aPaused.awaitArrival();
        assertEquals(task, a.taskId());
        assertEquals(0, fx.notifications(task), "A's notification is not committed while A is paused");
        JdbcTaskLedger.Claim b = ledger.claim(task, 0, 1, clock.instant()).orElseThrow(); // as B's processor does
        aPaused.release();

        awaitQueueState(queue, JobState.COMPLETED); // A returned quietly after LeaseLost (R9)
        assertEquals(0, fx.notifications(task), "A lost its lease: its notification rolled back");
        assertEquals(0, fx.events(task), "and its system event");
        BackgroundTask t = row();
        assertEquals(TaskStatus.RUNNING, t.status());
        assertEquals(b.lease().executionId(), t.executionId(), "the row still carries B's lease");
        assertNotEquals(a.executionId(), t.executionId());

        // B dies; R19/R20 heal the run and the production worker runs it again.
        fx.age(task, Duration.ofMinutes(10));
        assertTrue(sweeps.recoverStalled(1000).contains(TaskJobId.of(task, 0)));
        sweeps.dispatchDue(1000);
        awaitStatus(TaskStatus.COMPLETED);
        assertEquals(1, fx.notifications(task), "exactly one digest");
        assertEquals(1, fx.events(task));
        assertEquals(List.of(team.staff().toString()), List.of(fx.value(
                "SELECT recipient_id::text FROM notification WHERE task_id = ?", task)));
        assertEquals(DigestTransaction.EVENT_KIND, fx.value("SELECT kind FROM system_event WHERE task_id = ?", task));
    }

    // ---- helpers ----

    private static NewTaskRequest digest(String scope) {
        var b = Json.createObjectBuilder().add("kind", "DIGEST");
        if (scope != null) {
            b.add("scope", scope);
        }
        return new NewTaskRequest(b.build());
    }
}
