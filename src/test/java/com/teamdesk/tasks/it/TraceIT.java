package com.teamdesk.tasks.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.export.ClientQueue;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.ApiCase;
import com.teamdesk.tasks.it.support.OtlpReceiver;
import com.teamdesk.tasks.it.support.OtlpReceiver.ReceivedSpan;
import com.teamdesk.tasks.it.support.TestDeployments;
import com.teamdesk.tasks.it.support.Tokens;
import com.teamdesk.tasks.queue.JobRecord;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URL;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
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

/**
 * R45 (issue 32): traces, on the production path. The deployed WAR runs with MicroProfile Telemetry on
 * ({@code otel.sdk.disabled=false}) and Payara's own OTLP/HTTP exporter sending to an {@link OtlpReceiver} in this
 * JVM; tasks are created by HTTP requests and run by the server's own worker on its own threads and transactions.
 * Faults come from outside the application (a PostgreSQL trigger on the completion), as in
 * {@code ProductionWorkerReminderIT}. The tracing-off default is proved by {@code ApiIT.tracingIsOffByDefault}.
 */
@ExtendWith(ArquillianExtension.class)
@Execution(ExecutionMode.SAME_THREAD)
@RunAsClient
class TraceIT extends ApiCase {
    private static final Duration TASK_TIMEOUT = Duration.ofSeconds(60);
    private static final long SPAN_TIMEOUT_MS = 30_000;
    private static final String PREFIX = "it-trace-" + UUID.randomUUID().toString().substring(0, 8);
    private static OtlpReceiver receiver;

    @Deployment(testable = false)
    static WebArchive deployment() {
        receiver = OtlpReceiver.start();
        Map<String, String> config = new HashMap<>(receiver.serverConfig());
        config.putAll(Map.of("teamdesk.redis.prefix", PREFIX, "teamdesk.timers.enabled", "false",
                "teamdesk.task.backoff-ms", "30", "teamdesk.export.batch-size", "10"));
        return TestDeployments.app(config);
    }

    @AfterAll
    static void stopReceiver() {
        if (receiver != null) {
            receiver.close();
        }
    }

    @ArquillianResource
    URL url;

    private String trigger;

    @Override
    protected URL root() {
        return url;
    }

    @AfterEach
    void dropTrigger() {
        if (trigger != null) {
            data.exec("DROP TRIGGER IF EXISTS " + trigger + " ON background_task");
            data.exec("DROP FUNCTION IF EXISTS " + trigger + "()");
            data.exec("DROP SEQUENCE IF EXISTS " + trigger);
        }
    }

    /**
     * One trace from the POST through the execution: the client's {@code traceparent} starts the trace, Payara's
     * span of the POST is stored with the task and carried in its queue job, the execution's span is that span's
     * child with the task's attributes (the execution id and worker as the history recorded them, R43), and the
     * reminder's transaction is a span inside it. The first execution links to nothing.
     */
    @Test
    void aTaskIsOneTraceFromItsPostThroughItsExecution() throws Exception {
        UUID ticket = data.ticket(t.id(), t.customer(), t.staff(), "Trace me");
        String traceId = hex(16);
        String clientSpan = hex(8);
        String owner = Tokens.of(t.owner());
        Reply created = api.send("POST", api.uri(tasks()), owner,
                "{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket + "\",\"message\":\"Please look\"}",
                List.of("traceparent", "00-" + traceId + "-" + clientSpan + "-01"));
        assertEquals(202, created.status(), created.toString());
        String task = created.json().getString("id");
        api.awaitStatus(task, owner, "COMPLETED", TASK_TIMEOUT);

        String stored = (String) data.value("SELECT trace_parent FROM background_task WHERE id = ?::uuid", task);
        assertNotNull(stored, "the creating request's trace context is stored with the task");
        String[] parts = stored.split("-");
        assertEquals(4, parts.length, stored);
        assertEquals("00", parts[0]);
        assertEquals(traceId, parts[1], "the task is in the client's trace");
        String postSpan = parts[2];
        assertNotEquals(clientSpan, postSpan, "the stored parent is the server's span of the POST");
        assertEquals(stored, jobData(task + "-0").getString("traceparent"), "the queue job carries it");

        ReceivedSpan post = receiver.await(s -> s.spanId().equals(postSpan), 1, SPAN_TIMEOUT_MS, "of the POST").get(0);
        assertEquals(traceId, post.traceId());
        assertEquals(clientSpan, post.parentSpanId(), "Payara's span of the POST is the client's child");
        assertEquals(2, post.kind(), "a server span");

        ReceivedSpan execution = executions(task, 1).get(0);
        assertEquals(traceId, execution.traceId());
        assertEquals(postSpan, execution.parentSpanId(), "the execution is the POST's child");
        assertEquals(5, execution.kind(), "a consumer span");
        assertEquals(task, execution.attribute("teamdesk.task.id"));
        assertEquals("REMINDER", execution.attribute("teamdesk.task.kind"));
        assertEquals(0L, execution.attribute("teamdesk.task.run"));
        assertEquals(1L, execution.attribute("teamdesk.task.attempt"));
        assertEquals(data.value("SELECT execution_id::text FROM task_execution WHERE task_id = ?::uuid", task),
                execution.attribute("teamdesk.execution.id"), "the execution the history recorded");
        Object worker = data.value("SELECT worker FROM task_execution WHERE task_id = ?::uuid", task);
        assertNotNull(worker);
        assertEquals(worker, execution.attribute("teamdesk.worker"));
        assertEquals("COMPLETED", execution.attribute("teamdesk.execution.outcome"));
        assertTrue(execution.links().isEmpty(), "the first execution links to no earlier one");
        assertEquals("00-" + traceId + "-" + execution.spanId() + "-01",
                data.value("SELECT trace_span FROM background_task WHERE id = ?::uuid", task),
                "the execution's span is the task's latest");

        ReceivedSpan transaction = receiver.await(s -> s.name().equals("reminder.transaction")
                && s.parentSpanId().equals(execution.spanId()), 1, SPAN_TIMEOUT_MS, "of the reminder's transaction").get(0);
        assertEquals(traceId, transaction.traceId());
    }

    /**
     * Retries link each execution to the one before: a reminder whose completion fails three times (a trigger)
     * has three executions (attempts 1-3, FAILED), each after the first linked to the previous one; a member's
     * retry then runs run 1, whose execution links to run 0's last and completes. All four are children of the
     * POST's span, in its trace.
     */
    @Test
    void retriesAndANewRunLinkToThePreviousExecution() throws Exception {
        UUID ticket = data.ticket(t.id(), t.customer(), t.staff(), "Fails thrice");
        failCompletions(3);
        String owner = Tokens.of(t.owner());
        Reply created = api.post(tasks(), owner, "{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket + "\",\"message\":\"m\"}");
        assertEquals(202, created.status(), created.toString());
        String task = created.json().getString("id");
        api.awaitStatus(task, owner, "FAILED", TASK_TIMEOUT);
        Reply retried = api.post("tasks/" + task + "/retry", owner, null);
        assertEquals(202, retried.status(), retried.toString());
        api.awaitStatus(task, owner, "COMPLETED", TASK_TIMEOUT);

        String stored = (String) data.value("SELECT trace_parent FROM background_task WHERE id = ?::uuid", task);
        assertNotNull(stored);
        assertEquals(stored, jobData(task + "-1").getString("traceparent"), "the new run's job carries the task's parent");
        List<ReceivedSpan> spans = executions(task, 4).stream()
                .sorted(Comparator.comparing((ReceivedSpan s) -> (Long) s.attribute("teamdesk.task.run"))
                        .thenComparing(s -> (Long) s.attribute("teamdesk.task.attempt")))
                .toList();
        assertEquals(4, spans.size(), spans.toString());
        long[][] runAttempt = {{0, 1}, {0, 2}, {0, 3}, {1, 1}};
        String[] outcomes = {"FAILED", "FAILED", "FAILED", "COMPLETED"};
        for (int i = 0; i < 4; i++) {
            ReceivedSpan s = spans.get(i);
            assertEquals(runAttempt[i][0], s.attribute("teamdesk.task.run"), s.toString());
            assertEquals(runAttempt[i][1], s.attribute("teamdesk.task.attempt"), s.toString());
            assertEquals(outcomes[i], s.attribute("teamdesk.execution.outcome"), s.toString());
            assertEquals(stored.split("-")[1], s.traceId(), "one trace");
            assertEquals(stored.split("-")[2], s.parentSpanId(), "each execution is the POST's child");
            if (i == 0) {
                assertTrue(s.links().isEmpty(), s.toString());
            } else {
                assertEquals(1, s.links().size(), s.toString());
                assertEquals(spans.get(i - 1).spanId(), s.links().get(0).spanId(), "linked to the previous execution");
                assertEquals(spans.get(i - 1).traceId(), s.links().get(0).traceId());
                assertEquals("previous_execution", s.links().get(0).attributes().get("teamdesk.link"));
            }
        }
    }

    /**
     * A takeover links too: the reminder's completion meets what looks like the database going away (SQLState 57P03,
     * raised once by a trigger), so the execution is deferred (R35) and keeps its lease; the next execution's claim
     * takes it over (R43: TAKEN_OVER) and its span links to the deferred one's (outcome DEFERRED).
     */
    @Test
    void aTakeoverLinksToTheExecutionItTookOver() throws Exception {
        UUID ticket = data.ticket(t.id(), t.customer(), t.staff(), "Deferred once");
        failCompletions(1, "RAISE EXCEPTION USING ERRCODE = '57P03', MESSAGE = 'injected: cannot connect now';");
        String owner = Tokens.of(t.owner());
        Reply created = api.post(tasks(), owner, "{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket + "\",\"message\":\"m\"}");
        assertEquals(202, created.status(), created.toString());
        String task = created.json().getString("id");
        api.awaitStatus(task, owner, "COMPLETED", TASK_TIMEOUT);

        String first = (String) data.value("SELECT execution_id::text FROM task_execution WHERE task_id = ?::uuid"
                + " AND outcome = 'TAKEN_OVER'", task);
        String second = (String) data.value("SELECT taken_over_by::text FROM task_execution WHERE task_id = ?::uuid"
                + " AND outcome = 'TAKEN_OVER'", task);
        assertNotNull(first, "the history has the takeover");
        List<ReceivedSpan> spans = executions(task, 2);
        ReceivedSpan a = spans.stream().filter(s -> first.equals(s.attribute("teamdesk.execution.id"))).findFirst()
                .orElseThrow(() -> new AssertionError("no span of " + first + ": " + spans));
        ReceivedSpan b = spans.stream().filter(s -> second.equals(s.attribute("teamdesk.execution.id"))).findFirst()
                .orElseThrow(() -> new AssertionError("no span of " + second + ": " + spans));
        assertEquals("DEFERRED", a.attribute("teamdesk.execution.outcome"));
        assertEquals("COMPLETED", b.attribute("teamdesk.execution.outcome"));
        assertEquals(1L, b.attribute("teamdesk.task.attempt"), "a deferral is not an attempt (R35)");
        assertEquals(1, b.links().size(), b.toString());
        assertEquals(a.spanId(), b.links().get(0).spanId(), "the successor links to the execution it took over");
        assertEquals(a.traceId(), b.traceId(), "one trace");
    }

    /** An export's batches (10 rows each here) are spans inside its execution's span, with their row counts. */
    @Test
    void anExportsBatchesAreSpansInsideItsExecution() throws Exception {
        for (int i = 0; i < 25; i++) {
            data.ticket(t.id(), t.customer(), t.staff(), "Ticket " + i);
        }
        String owner = Tokens.of(t.owner());
        Reply created = api.post(tasks(), owner, "{\"kind\":\"EXPORT\",\"scope\":\"TEAM\",\"filters\":{\"status\":[\"OPEN\"]}}");
        assertEquals(202, created.status(), created.toString());
        String task = created.json().getString("id");
        api.awaitStatus(task, owner, "COMPLETED", TASK_TIMEOUT);

        ReceivedSpan execution = executions(task, 1).get(0);
        assertEquals("EXPORT", execution.attribute("teamdesk.task.kind"));
        assertEquals("COMPLETED", execution.attribute("teamdesk.execution.outcome"));
        List<ReceivedSpan> batches = receiver.await(s -> s.name().equals("export.batch")
                && s.parentSpanId().equals(execution.spanId()), 3, SPAN_TIMEOUT_MS, "of the export's batches");
        assertEquals(25L, batches.stream().mapToLong(b -> (Long) b.attribute("teamdesk.export.rows")).sum());
        batches.forEach(b -> assertEquals(execution.traceId(), b.traceId()));
    }

    private List<ReceivedSpan> executions(String task, int count) throws InterruptedException {
        return receiver.await(s -> s.name().equals("task.execution") && task.equals(s.attribute("teamdesk.task.id")),
                count, SPAN_TIMEOUT_MS, "of task " + task + "'s executions");
    }

    private JsonObject jobData(String jobId) {
        try (ClientQueue queue = new ClientQueue(PREFIX)) {
            JobRecord job = queue.queue().getJob(jobId).orElseThrow(() -> new AssertionError("no queue record " + jobId));
            return Json.createReader(new StringReader(job.data())).readObject();
        }
    }

    /** Installs a trigger that makes the first {@code times} COMPLETED updates of this team's tasks raise. */
    private void failCompletions(int times) {
        failCompletions(times, "RAISE EXCEPTION 'injected fault: completion of %', NEW.id;");
    }

    /** As {@link #failCompletions(int)}, raising with {@code raise} (a PL/pgSQL RAISE statement). */
    private void failCompletions(int times, String raise) {
        trigger = "it_trace_" + t.id().toString().replace("-", "").substring(0, 16);
        data.exec("CREATE SEQUENCE " + trigger);
        data.exec("CREATE FUNCTION " + trigger + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                + " IF nextval('" + trigger + "') <= " + times + " THEN " + raise + " END IF; RETURN NEW; END $$");
        data.exec("CREATE TRIGGER " + trigger + " BEFORE UPDATE ON background_task FOR EACH ROW WHEN (NEW.team_id = '"
                + t.id() + "' AND NEW.status = 'COMPLETED') EXECUTE FUNCTION " + trigger + "()");
    }

    private String tasks() {
        return "teams/" + t.id() + "/tasks";
    }

    private static String hex(int bytes) {
        byte[] b = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(b);
        b[0] |= 1; // never all zero (invalid in W3C Trace Context)
        return HexFormat.of().formatHex(b);
    }
}
