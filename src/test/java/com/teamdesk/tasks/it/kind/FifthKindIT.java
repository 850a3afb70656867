package com.teamdesk.tasks.it.kind;

import com.teamdesk.tasks.it.engine.EngineFixtures;
import com.teamdesk.tasks.it.engine.GatedPausePoints;
import com.teamdesk.tasks.it.engine.RecordingJob;
import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.OtlpReceiver;
import com.teamdesk.tasks.it.support.OtlpReceiver.ReceivedSpan;
import com.teamdesk.tasks.it.support.Poll;
import com.teamdesk.tasks.it.support.TestData;
import com.teamdesk.tasks.it.support.TestDeployments;
import com.teamdesk.tasks.it.support.Tokens;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.service.TaskService;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.Lease;
import com.teamdesk.tasks.task.spi.NewTaskRequest;
import com.teamdesk.tasks.task.spi.TaskStatus;
import jakarta.inject.Inject;
import jakarta.json.Json;
import java.net.URL;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import static com.teamdesk.tasks.it.engine.GatedPausePoints.ANY_TASK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Issue 51: a fifth kind added without touching the engine. {@link ProbeHandler} and its own rejection reason,
 * pause point and span live only in this package and are added to this deployment; CDI finds the handler, and the
 * deployed production worker runs its tasks on its own threads and transactions (tracing on, spans sent to an
 * {@link OtlpReceiver} in the test JVM, as in {@code TraceIT}). Proved: a run rejected with the kind's reason is
 * FAILED at once with the reason's message as {@code lastError} (R11); a gate at the kind's own pause point holds the
 * execution; the kind's span is a child of its execution's span (R45).
 */
@ExtendWith(ArquillianExtension.class)
@Execution(ExecutionMode.SAME_THREAD)
class FifthKindIT {
    private static final Duration WAIT = Duration.ofSeconds(GatedPausePoints.MAX_WAIT_S * 2);
    private static final long SPAN_TIMEOUT_MS = 30_000;
    /** The test JVM's receiver of the server's spans (client side only). */
    private static OtlpReceiver receiver;

    @Deployment
    static WebArchive deployment() {
        receiver = OtlpReceiver.start();
        Map<String, String> config = new HashMap<>(receiver.serverConfig());
        config.putAll(Map.of("teamdesk.timers.enabled", "false", "teamdesk.task.backoff-ms", "30"));
        return TestDeployments.app(config,
                FifthKindIT.class, EngineFixtures.class, GatedPausePoints.class, RecordingJob.class,
                ProbeHandler.class, ProbeRejection.class, ProbePausePoint.class, ProbeSpans.class);
    }

    @AfterAll
    static void stopReceiver() {
        if (receiver != null) {
            receiver.close();
        }
    }

    @Inject
    EngineFixtures fx;
    @Inject
    GatedPausePoints gates;
    @Inject
    TaskService tasks;
    @Inject
    JdbcTaskLedger ledger;

    @ArquillianResource
    URL url;

    private UUID task;

    @AfterEach
    void resetGates() {
        if (gates != null) { // in the server only
            gates.reset(ANY_TASK);
            if (task != null) {
                gates.reset(task);
            }
        }
    }

    /** R11: the kind's own reason fails the run at once, its message shown as {@code lastError}. */
    @Test
    void aRunRejectedWithTheKindsOwnReasonFailsAtOnceWithItsMessage() throws Exception {
        EngineFixtures.TestTeam team = fx.newTeam();
        task = tasks.create(team.staff(), team.id(), probe("REJECT")).id();
        awaitStatus(TaskStatus.FAILED);
        BackgroundTask t = row();
        assertEquals(ProbeRejection.PROBE_REFUSED.message(), t.lastError());
        assertEquals(1, t.attempts(), "rejected at once, no retry");
        assertEquals(1, gates.arrivals(ProbePausePoint.PROBE_WORKING, task));
    }

    /** A gate at the kind's own pause point holds the execution on the production worker until it is released. */
    @Test
    void aGateAtTheKindsOwnPausePointHoldsTheExecution() throws Exception {
        var held = gates.gate(ProbePausePoint.PROBE_WORKING, ANY_TASK, 1);
        EngineFixtures.TestTeam team = fx.newTeam();
        task = tasks.create(team.staff(), team.id(), probe("COMPLETE")).id();
        Lease lease = held.awaitArrival();
        assertEquals(task, lease.taskId());
        BackgroundTask running = row();
        assertEquals(TaskStatus.RUNNING, running.status(), "held at its pause point, the run is still RUNNING");
        assertEquals(lease.executionId(), running.executionId());
        held.release();
        awaitStatus(TaskStatus.COMPLETED);
        BackgroundTask done = row();
        assertEquals(100, done.progress());
        assertNull(done.executionId());
    }

    /** R45: the kind's span, by the name it declares, is a child of its execution's span. */
    @Test
    @RunAsClient
    void theKindsSpanIsInsideItsExecutionsSpan() throws Exception {
        Api api = Api.at(url);
        TestData.TestTeam t = TestData.fromEnvironment().newTeam();
        String owner = Tokens.of(t.owner());
        Reply created = api.post("teams/" + t.id() + "/tasks", owner, "{\"kind\":\"PROBE\"}");
        assertEquals(202, created.status(), created.toString());
        String id = created.json().getString("id");
        api.awaitStatus(id, owner, "COMPLETED", Duration.ofSeconds(60));
        ReceivedSpan execution = receiver.await(s -> s.name().equals("task.execution")
                && id.equals(s.attribute("teamdesk.task.id")), 1, SPAN_TIMEOUT_MS, "of the probe's execution").get(0);
        assertEquals("PROBE", execution.attribute("teamdesk.task.kind"));
        ReceivedSpan work = receiver.await(s -> s.name().equals("probe.work")
                && s.parentSpanId().equals(execution.spanId()), 1, SPAN_TIMEOUT_MS, "of the probe's work").get(0);
        assertEquals(execution.traceId(), work.traceId());
    }

    private static NewTaskRequest probe(String outcome) {
        return new NewTaskRequest(Json.createObjectBuilder().add("kind", "PROBE").add("outcome", outcome).build());
    }

    private BackgroundTask row() {
        return ledger.find(task).orElseThrow();
    }

    private void awaitStatus(TaskStatus status) throws InterruptedException {
        Poll.until(() -> row().status() == status, WAIT, "task " + task + " never became " + status + " (is " + row() + ")");
    }
}
