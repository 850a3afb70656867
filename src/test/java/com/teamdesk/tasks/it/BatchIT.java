package com.teamdesk.tasks.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.lifecycle.SharedServer;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.ApiCase;
import com.teamdesk.tasks.it.support.Tokens;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.URL;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue 52 (R51-R54) from a client's side, on the shared server with its worker and without timers
 * ({@link SharedServer#API_AND_WORKER}): nothing but the production path hands a released task to the queue, so a
 * completion or a dependent that runs here was dispatched by the end that released it. Every test makes its own team.
 *
 * <p>A prerequisite the test controls is a reminder scheduled an hour ahead: with timers off it waits until the test
 * cancels it through the API, which releases what waits for it (its dependents with {@code afterFailure: RUN}).
 */
@Execution(ExecutionMode.SAME_THREAD)
class BatchIT extends ApiCase {
    @RegisterExtension
    static final SharedServer SERVER = SharedServer.of(SharedServer.API_AND_WORKER);

    private static final Duration DONE = Duration.ofSeconds(60);

    @Override
    protected URL root() {
        return SERVER.url();
    }

    /**
     * The help desk's bulk reminder: one batch of reminders with a BATCH_REPORT completion; every reminder runs, the
     * completion is created once, runs once and tells the caller who was reminded.
     */
    @Test
    void aBulkReminderEndsWithOneReportNamingWhoWasReminded() {
        String staff = Tokens.of(t.staff());
        UUID ann = data.user("ann-" + t.slug());
        UUID bo = data.user("bo-" + t.slug());
        data.member(t.id(), ann, "STAFF");
        data.member(t.id(), bo, "STAFF");
        List<UUID> tickets = List.of(data.ticket(t.id(), t.customer(), ann, "Printer"),
                data.ticket(t.id(), t.customer(), bo, "VPN"), data.ticket(t.id(), t.customer(), ann, "Mail"));
        String items = tickets.stream().map(id -> reminder(id, "Overdue, please look")).collect(Collectors.joining(","));
        Reply created = api.post(batches(), staff, "{\"label\":\"Overdue\",\"items\":[" + items + "],"
                + "\"completion\":{\"kind\":\"BATCH_REPORT\"}}");
        assertEquals(202, created.status(), created.toString());
        JsonObject batch = created.json();
        assertEquals(3, batch.getInt("size"));
        assertEquals("/api/v1/batches/" + batch.getString("id"), created.header("Location"));

        JsonObject done = awaitBatch(batch.getString("id"), staff);
        assertEquals(3, done.getJsonObject("counts").getInt("completed"), done.toString());
        String report = done.getJsonObject("completion").getString("taskId");
        api.awaitStatus(report, staff, "COMPLETED", DONE);
        assertEquals(1, data.count("SELECT count(*) FROM background_task WHERE completes_batch = ?::uuid",
                batch.getString("id")), "one completion");
        String message = (String) data.value("SELECT message FROM notification WHERE task_id = ?::uuid AND recipient_id = ?",
                report, t.staff());
        assertTrue(message.startsWith("Batch \"Overdue\": 3 of 3 completed."), message);
        assertTrue(message.contains("Reached 2 people: User ann-" + t.slug() + ", User bo-" + t.slug() + "."), message);
        assertEquals(3, data.count("SELECT count(*) FROM notification n JOIN background_task c ON c.id = n.task_id"
                + " WHERE c.batch_id = ?::uuid", batch.getString("id")), "one notification per reminder");

        String operator = Tokens.with(data.user("ops-" + t.slug()), jakarta.json.Json.createObjectBuilder()
                .add("groups", jakarta.json.Json.createArrayBuilder().add("member").add("operator")));
        Reply executions = api.get("admin/executions?team=" + t.id(), operator);
        assertEquals(200, executions.status(), executions.toString());
        assertTrue(executions.json().getJsonArray("items").stream().map(JsonValue::asJsonObject)
                .allMatch(e -> batch.getString("id").equals(e.getString("batchId"))),
                "the operator's executions name the batch of each child and of the completion: " + executions);

        Reply children = api.get("batches/" + batch.getString("id") + "/tasks?limit=2", staff);
        assertEquals(200, children.status(), children.toString());
        assertEquals(2, children.json().getJsonArray("items").size());
        assertNotNull(children.json().getString("nextCursor"));
    }

    /** All or nothing: a refusal names its item, and nothing of the batch is stored. */
    @Test
    void aRefusedItemNamesItselfAndNothingIsStored() {
        String staff = Tokens.of(t.staff());
        UUID ticket = data.ticket(t.id(), t.customer(), t.staff(), "Printer");
        UUID foreign = data.task(t.otherTeam(), t.outsider(), "DIGEST", "SELF", "COMPLETED", "{}", null);
        UUID unknown = UUID.randomUUID();
        String ok = reminder(ticket, "m");
        Map<String, String> refusals = Map.ofEntries(
                Map.entry("{\"items\":[" + ok + ",{\"kind\":\"NOPE\"}]}", "task.invalid|items[1]"),
                Map.entry("{\"items\":[" + ok + "," + reminder(UUID.randomUUID(), "m") + "]}", "ticket.not_found|items[1]"),
                Map.entry("{\"items\":[]}", "batch.invalid|items"),
                Map.entry("{\"items\":[" + ok + "],\"onChildFailure\":\"SOMETIMES\"}", "task.invalid|onChildFailure"),
                Map.entry("{\"items\":[{\"kind\":\"BATCH_REPORT\"}]}", "task.completion_only|items[0]"),
                Map.entry("{\"items\":[{\"kind\":\"SLA_ESCALATION\"}]}", "task.system_only|items[0]"),
                Map.entry("{\"items\":[" + ok + "],\"completion\":{\"kind\":\"SLA_ESCALATION\"}}",
                        "task.system_only|completion"),
                Map.entry("{\"items\":[" + ok + "],\"completion\":{\"kind\":\"DIGEST\",\"runAt\":\"2030-01-01T00:00:00Z\"}}",
                        "request.malformed|completion"),
                Map.entry("{\"items\":[{\"kind\":\"DIGEST\",\"after\":[1]},{\"kind\":\"DIGEST\",\"after\":[0]}]}",
                        "task.after_cycle|items[0]"),
                Map.entry("{\"items\":[{\"kind\":\"DIGEST\",\"after\":[0]}]}", "task.after_invalid|itself"),
                Map.entry("{\"items\":[{\"kind\":\"DIGEST\"},{\"kind\":\"DIGEST\",\"after\":[1e999999999]}]}",
                        "task.after_invalid|after"),
                Map.entry("{\"items\":[{\"kind\":\"DIGEST\"},{\"kind\":\"DIGEST\",\"after\":[0.0]}]}",
                        "task.after_invalid|after"),
                Map.entry("{\"items\":[{\"kind\":\"DIGEST\"},{\"kind\":\"DIGEST\",\"after\":[\"nope\"]}]}",
                        "task.after_invalid|nope"),
                Map.entry("{\"items\":[{\"kind\":\"DIGEST\"},{\"kind\":\"DIGEST\",\"after\":{}}]}",
                        "task.after_invalid|array"),
                Map.entry("{\"items\":[" + ok + ",{\"kind\":\"DIGEST\",\"after\":[\"" + unknown + "\"]}]}",
                        "task.prerequisite_not_found|" + unknown),
                Map.entry("{\"items\":[{\"kind\":\"DIGEST\",\"after\":[\"" + foreign + "\"]}]}",
                        "task.prerequisite_not_found|" + foreign),
                Map.entry("{\"items\":[" + IntStream.range(0, 1001).mapToObj(i -> "{\"kind\":\"DIGEST\"}")
                        .collect(Collectors.joining(",")) + "]}", "batch.invalid|at most 1000"));
        refusals.forEach((body, expected) -> {
            String[] codeAndWords = expected.split("\\|");
            Reply r = api.post(batches(), staff, body);
            assertTrue(r.status() >= 400 && r.status() < 500, body + " -> " + r);
            assertEquals(codeAndWords[0], r.problemCode().orElse(null), body + " -> " + r);
            assertTrue(r.json().getString("detail").contains(codeAndWords[1]), body + " -> " + r);
        });
        assertEquals(0, data.count("SELECT count(*) FROM task_batch WHERE team_id = ?", t.id()));
        assertEquals(0, data.count("SELECT count(*) FROM background_task WHERE team_id = ?", t.id()));
        assertEquals(0, data.count("SELECT count(*) FROM task_dependency x JOIN background_task p"
                + " ON p.id = x.prerequisite_id WHERE p.id = ?", foreign));
    }

    /** R53: a chain of three, each created alone with {@code after}: each runs only after the one before completed. */
    @Test
    void aChainOfThreeRunsInOrder() {
        String staff = Tokens.of(t.staff());
        String first = created(api.post(tasks(), staff, "{\"kind\":\"DIGEST\"}"));
        String second = created(api.post(tasks(), staff, "{\"kind\":\"DIGEST\",\"after\":[\"" + first + "\"]}"));
        String third = created(api.post(tasks(), staff, "{\"kind\":\"DIGEST\",\"after\":[\"" + second + "\"]}"));
        api.awaitStatus(third, staff, "COMPLETED", DONE);
        Timestamp firstEnded = ended(first);
        Timestamp secondClaimed = claimed(second);
        Timestamp secondEnded = ended(second);
        Timestamp thirdClaimed = claimed(third);
        assertTrue(!secondClaimed.before(firstEnded), "the second started after the first ended");
        assertTrue(!thirdClaimed.before(secondEnded), "the third started after the second ended");
        assertEquals(0, api.get("tasks/" + third, staff).json().getInt("waitsFor"));
    }

    /**
     * R53: a prerequisite cancelled cancels what waits for it with a cause that names it, and releases what runs
     * anyway; a task of another team, or one already failed, cannot be named.
     */
    @Test
    void aCancelledPrerequisiteCancelsItsDependentAndReleasesOneThatRunsAnyway() {
        String staff = Tokens.of(t.staff());
        String gate = scheduledReminder(staff);
        String cancelled = created(api.post(tasks(), staff, "{\"kind\":\"DIGEST\",\"after\":[\"" + gate + "\"]}"));
        String anyway = created(api.post(tasks(), staff, "{\"kind\":\"DIGEST\",\"after\":[\"" + gate + "\"],"
                + "\"afterFailure\":\"RUN\"}"));
        assertEquals(1, api.get("tasks/" + cancelled, staff).json().getInt("waitsFor"));
        assertEquals(200, api.post("tasks/" + gate + "/cancel", staff, "").status());

        JsonObject dependent = api.awaitStatus(cancelled, staff, "CANCELLED", DONE);
        assertEquals("Cancelled: it waits for task " + gate + ", which ended CANCELLED.", dependent.getString("lastError"));
        api.awaitStatus(anyway, staff, "COMPLETED", DONE);

        Reply ended = api.post(tasks(), staff, "{\"kind\":\"DIGEST\",\"after\":[\"" + gate + "\"]}");
        assertEquals("task.prerequisite_ended", ended.problemCode().orElse(null), ended.toString());
        Reply retry = api.post("tasks/" + cancelled + "/retry", staff, "");
        assertEquals("task.prerequisite_ended", retry.problemCode().orElse(null), retry.toString());
        UUID foreign = data.task(t.otherTeam(), t.outsider(), "DIGEST", "SELF", "COMPLETED", "{}", null);
        Reply other = api.post(tasks(), staff, "{\"kind\":\"DIGEST\",\"after\":[\"" + foreign + "\"]}");
        assertEquals(404, other.status(), other.toString());
        assertEquals("task.prerequisite_not_found", other.problemCode().orElse(null));
        Reply customer = api.post(tasks(), Tokens.of(t.customer()), "{\"kind\":\"DIGEST\",\"after\":[\"" + gate + "\"]}");
        assertEquals(404, customer.status(), "a customer may not name another member's task: " + customer);
    }

    /**
     * R53, found by CI: the end that releases a dependent hands it to the queue even when another transaction holds the
     * dependent's row at that moment, as a create naming it as its prerequisite does for a few milliseconds. The
     * release used to skip a held row ({@code SKIP LOCKED}) and leave it to the dispatch sweep, which this server does
     * not run: a chain of three stopped at its second task. The holder here takes {@code FOR KEY SHARE}, which lets the
     * release's count move and holds off its lock; the order comes from PostgreSQL's own view of who waits for whom.
     */
    @Test
    void aDependentHeldElsewhereWhenReleasedIsStillHandedOver() throws Exception {
        String staff = Tokens.of(t.staff());
        String gate = scheduledReminder(staff);
        String dependent = created(api.post(tasks(), staff, "{\"kind\":\"DIGEST\",\"after\":[\"" + gate + "\"],"
                + "\"afterFailure\":\"RUN\"}"));
        CompletableFuture<Reply> cancel;
        try (Connection holder = data.connection()) {
            holder.setAutoCommit(false);
            int pid;
            try (Statement st = holder.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                pid = rs.getInt(1);
            }
            try (PreparedStatement ps = holder.prepareStatement("SELECT 1 FROM background_task WHERE id = ?::uuid"
                    + " FOR KEY SHARE")) {
                ps.setString(1, dependent);
                ps.executeQuery().close();
            }
            cancel = CompletableFuture.supplyAsync(() -> api.post("tasks/" + gate + "/cancel", staff, ""));
            long deadline = System.nanoTime() + DONE.toNanos();
            while (data.count("SELECT count(*) FROM pg_stat_activity WHERE ? = ANY (pg_blocking_pids(pid))", pid) == 0) {
                assertTrue(System.nanoTime() < deadline, "the release never waited for the held row; the cancel said "
                        + (cancel.isDone() ? cancel.join() : "nothing yet") + ", the dependent is "
                        + api.get("tasks/" + dependent, staff).json());
                pause();
            }
            holder.commit();
        }
        assertEquals(200, cancel.get(DONE.toSeconds(), TimeUnit.SECONDS).status());
        api.awaitStatus(dependent, staff, "COMPLETED", DONE);
    }

    /**
     * R52 CANCEL_REST: a child that fails for good cancels its waiting siblings; the batch still ends, and its report
     * says what failed and why.
     */
    @Test
    void aChildThatFailsCancelsTheRestAndTheReportSaysWhy() {
        String staff = Tokens.of(t.staff());
        String gate = scheduledReminder(staff);
        UUID doomed = data.ticket(t.id(), t.customer(), t.staff(), "Doomed");
        UUID fine = data.ticket(t.id(), t.customer(), t.staff(), "Fine");
        String failing = "{\"kind\":\"REMINDER\",\"ticketId\":\"" + doomed + "\",\"message\":\"m\",\"after\":[\"" + gate
                + "\"],\"afterFailure\":\"RUN\"}";
        String waiting = "{\"kind\":\"REMINDER\",\"ticketId\":\"" + fine + "\",\"message\":\"m\",\"after\":[0],"
                + "\"afterFailure\":\"RUN\"}";
        Reply created = api.post(batches(), staff, "{\"items\":[" + failing + "," + waiting + "," + waiting + "],"
                + "\"onChildFailure\":\"CANCEL_REST\",\"completion\":{\"kind\":\"BATCH_REPORT\"}}");
        assertEquals(202, created.status(), created.toString());
        String batch = created.json().getString("id");
        data.exec("DELETE FROM ticket WHERE id = ?", doomed); // the first child will find its ticket gone
        assertEquals(200, api.post("tasks/" + gate + "/cancel", staff, "").status());

        JsonObject done = awaitBatch(batch, staff);
        JsonObject counts = done.getJsonObject("counts");
        assertEquals(List.of(0, 1, 2), List.of(counts.getInt("completed"), counts.getInt("failed"),
                counts.getInt("cancelled")), done.toString());
        String report = done.getJsonObject("completion").getString("taskId");
        api.awaitStatus(report, staff, "COMPLETED", DONE);
        String message = (String) data.value("SELECT message FROM notification WHERE task_id = ?::uuid", report);
        assertTrue(message.contains("0 of 3 completed, 1 failed, 2 cancelled."), message);
        assertTrue(message.contains("(FAILED: Rejected: the ticket no longer exists.)"), message);
        assertTrue(message.indexOf("FAILED") < message.indexOf("CANCELLED"), "the failure is listed first: " + message);
        assertTrue(message.contains("onChildFailure CANCEL_REST"), message);
        assertEquals(1, data.count("SELECT count(*) FROM background_task WHERE completes_batch = ?::uuid", batch));
    }

    /**
     * R52: cancelling a batch cancels its waiting children; with {@code completionWhenCancelled} the completion runs
     * once they have all ended; a second cancel answers the batch as it is; another team's member gets 404.
     */
    @Test
    void cancellingABatchCancelsItsWaitingChildrenAndRunsTheCompletionOnce() {
        String staff = Tokens.of(t.staff());
        String gate = scheduledReminder(staff);
        String item = "{\"kind\":\"DIGEST\",\"after\":[\"" + gate + "\"]}";
        Reply created = api.post(batches(), staff, "{\"items\":[" + item + "," + item + "],"
                + "\"completion\":{\"kind\":\"BATCH_REPORT\"},\"completionWhenCancelled\":true}");
        assertEquals(202, created.status(), created.toString());
        String batch = created.json().getString("id");
        assertEquals(404, api.get("batches/" + batch, Tokens.of(t.outsider())).status());
        assertEquals(404, api.post("batches/" + batch + "/cancel", Tokens.of(t.outsider()), "").status());
        assertEquals(404, api.get("batches/" + batch, Tokens.of(t.customer())).status(), "not the customer's batch");

        Reply cancel = api.post("batches/" + batch + "/cancel", staff, "");
        assertEquals(200, cancel.status(), cancel.toString());
        assertEquals("CANCELLED", cancel.json().getString("state"));
        assertEquals(2, cancel.json().getJsonObject("counts").getInt("cancelled"));
        String report = awaitCompletion(batch, staff);
        api.awaitStatus(report, staff, "COMPLETED", DONE);
        Reply again = api.post("batches/" + batch + "/cancel", staff, "");
        assertEquals(200, again.status(), again.toString());
        assertEquals(1, data.count("SELECT count(*) FROM background_task WHERE completes_batch = ?::uuid", batch));
        Reply list = api.get(batches(), staff);
        assertEquals(batch, list.json().getJsonArray("items").getJsonObject(0).getString("id"));
    }

    /** R25 for a batch: the same key and body answer the same batch and create nothing more. */
    @Test
    void anIdempotencyKeyCreatesTheBatchOnce() {
        String staff = Tokens.of(t.staff());
        String body = "{\"items\":[{\"kind\":\"DIGEST\"},{\"kind\":\"DIGEST\"}]}";
        List<String> key = List.of("Idempotency-Key", "batch-" + UUID.randomUUID());
        Reply first = api.send("POST", api.uri(batches()), staff, body, key);
        Reply second = api.send("POST", api.uri(batches()), staff, body, key);
        assertEquals(202, first.status(), first.toString());
        assertEquals(202, second.status(), second.toString());
        assertEquals("true", second.header("Idempotent-Replayed"));
        assertEquals(first.json().getString("id"), second.json().getString("id"));
        assertEquals(2, data.count("SELECT count(*) FROM background_task WHERE team_id = ?", t.id()));
    }

    private String batches() {
        return "teams/" + t.id() + "/batches";
    }

    private String tasks() {
        return "teams/" + t.id() + "/tasks";
    }

    private static String reminder(UUID ticket, String message) {
        return "{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket + "\",\"message\":\"" + message + "\"}";
    }

    /** @return a reminder an hour ahead: WAITING until the test cancels it (timers are off) */
    private String scheduledReminder(String token) {
        UUID ticket = data.ticket(t.id(), t.customer(), t.staff(), "Gate");
        String at = Instant.now().plus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS).toString();
        return created(api.post(tasks(), token, "{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket
                + "\",\"message\":\"gate\",\"runAt\":\"" + at + "\"}"));
    }

    private static String created(Reply r) {
        assertEquals(202, r.status(), r.toString());
        return r.json().getString("id");
    }

    private Timestamp claimed(String task) {
        return (Timestamp) data.value("SELECT claimed_at FROM task_execution WHERE task_id = ?::uuid", task);
    }

    private Timestamp ended(String task) {
        return (Timestamp) data.value("SELECT ended_at FROM task_execution WHERE task_id = ?::uuid", task);
    }

    /** Polls the batch (bounded, every 100 ms) until every child has ended and its completion, if any, exists. */
    private JsonObject awaitBatch(String batch, String token) {
        long deadline = System.nanoTime() + DONE.toNanos();
        JsonObject last = null;
        while (System.nanoTime() < deadline) {
            Reply r = api.get("batches/" + batch, token);
            assertEquals(200, r.status(), r.toString());
            last = r.json();
            boolean ended = !"OPEN".equals(last.getString("state"));
            JsonObject completion = last.getJsonObject("completion");
            boolean completionCreated = completion.isNull("kind") || !completion.isNull("taskId");
            if (ended && completionCreated) {
                return last;
            }
            pause();
        }
        throw new AssertionError("batch " + batch + " did not finish within " + DONE + "; last: " + last);
    }

    private String awaitCompletion(String batch, String token) {
        long deadline = System.nanoTime() + DONE.toNanos();
        while (System.nanoTime() < deadline) {
            JsonObject b = api.get("batches/" + batch, token).json();
            if (!b.getJsonObject("completion").isNull("taskId")) {
                return b.getJsonObject("completion").getString("taskId");
            }
            pause();
        }
        throw new AssertionError("batch " + batch + " has no completion after " + DONE);
    }

    private static void pause() {
        try {
            Thread.sleep(100); // bounded poll interval, not used for ordering
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
