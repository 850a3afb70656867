package com.teamdesk.tasks.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.export.ClientQueue;
import com.teamdesk.tasks.it.lifecycle.SharedServer;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.ApiCase;
import com.teamdesk.tasks.it.support.Tokens;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.URL;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The REST contract (API.md) from a client's side, against the real server, PostgreSQL, Redis
 * and worker: tickets, task creation and download, member views, and what the API answers to
 * input a client can get wrong (always a 4xx problem+json with a code, never a 500, nothing
 * created). Every test makes its own team. The server, worker on and timers off, is shared with
 * ScheduleApiIT ({@link SharedServer#API_AND_WORKER}).
 */
@Execution(ExecutionMode.SAME_THREAD)
class ApiIT extends ApiCase {
    @RegisterExtension
    static final SharedServer SERVER = SharedServer.of(SharedServer.API_AND_WORKER);

    /**
     * Keys of a task body (API.md "Task body", plus runAt and the cancel fields of issue 13, the waitingReason and waitingUntil of
     * issue 30, the scheduleId and slotAt of issue 31 and the batchId, completesBatch and waitsFor of issue 52); never
     * executionId, never the CSV.
     */
    static final Set<String> TASK_KEYS = Set.of("id", "kind", "teamId", "ownerId", "scope", "filters", "status",
            "run", "displayRun", "attempts", "progress", "lastError", "resultSummary", "expiresAt", "runAt",
            "waitingReason", "waitingUntil", "cancelledAt", "cancelledBy", "scheduleId", "slotAt", "batchId",
            "completesBatch", "waitsFor", "createdAt", "updatedAt", "links");
    private static final Duration TASK_TIMEOUT = Duration.ofSeconds(60);

    @Override
    protected URL root() {
        return SERVER.url();
    }

    @Test
    void healthAndOpenApiAreServed() {
        Reply health = api.getRoot("health");
        assertEquals(200, health.status(), health.toString());
        assertEquals("UP", health.json().getString("status"));
        Reply openapi = api.getRoot("openapi");
        assertEquals(200, openapi.status(), openapi.toString());
        assertTrue(openapi.body().contains("/api/v1/teams/{teamId}/tickets"), "the OpenAPI document lists the API");
        assertTrue(openapi.body().contains("TeamDesk Tasks API"));
    }

    @Test
    void ticketLifecycleWithOptimisticConcurrency() {
        String customer = Tokens.of(t.customer());
        String staff = Tokens.of(t.staff());

        Reply created = api.post(tickets(), customer, "{\"title\":\"  Printer on fire  \",\"body\":\"Smoke, \\\"lots\\\" — 火\"}");
        assertEquals(201, created.status(), created.toString());
        JsonObject ticket = created.json();
        String id = ticket.getString("id");
        assertEquals("/api/v1/" + tickets() + "/" + id, created.header("Location"), "relative, never from Host");
        assertEquals("\"1\"", created.header("ETag"));
        assertEquals("Printer on fire", ticket.getString("title"), "the title is trimmed");
        assertEquals("Smoke, \"lots\" — 火", ticket.getString("body"));
        assertEquals("OPEN", ticket.getString("status"));
        assertEquals("NORMAL", ticket.getString("priority"));
        assertEquals(JsonValue.NULL, ticket.get("assigneeId"));
        assertEquals(t.customer().toString(), ticket.getString("requesterId"));
        assertEquals(t.id().toString(), ticket.getString("teamId"));
        assertEquals(1, ticket.getInt("version"));
        assertIsoWithOffset(ticket.getString("createdAt"));

        Reply read = api.get(tickets() + "/" + id, customer);
        assertEquals(200, read.status(), read.toString());
        assertEquals(ticket.getString("createdAt"), read.json().getString("createdAt"), "the answer shows what is stored");

        String assign = "{\"status\":\"PENDING\",\"priority\":\"HIGH\",\"assigneeId\":\"" + t.staff() + "\"}";
        Reply patched = api.patch(tickets() + "/" + id, staff, "\"1\"", assign);
        assertEquals(200, patched.status(), patched.toString());
        assertEquals(2, patched.json().getInt("version"));
        assertEquals("\"2\"", patched.header("ETag"));
        assertEquals("PENDING", patched.json().getString("status"));
        assertEquals(t.staff().toString(), patched.json().getString("assigneeId"));

        Reply stale = api.patch(tickets() + "/" + id, staff, "1", "{\"status\":\"CLOSED\"}");
        assertProblem(stale, 412, "ticket.version_mismatch");
        assertEquals("PENDING", data.value("SELECT status FROM ticket WHERE id = ?::uuid", id), "a stale PATCH changes nothing");
        assertProblem(api.patch(tickets() + "/" + id, staff, null, "{\"status\":\"CLOSED\"}"), 428, "ticket.if_match_required");
        assertProblem(api.patch(tickets() + "/" + id, staff, "abc", "{\"status\":\"CLOSED\"}"), 400, "ticket.if_match_invalid");

        Reply noChange = api.patch(tickets() + "/" + id, staff, "2", "{\"status\":\"PENDING\"}");
        assertEquals(200, noChange.status(), noChange.toString());
        assertEquals(2, noChange.json().getInt("version"), "a PATCH that changes nothing does not bump the version");

        // A weak validator never satisfies If-Match (RFC 9110 13.1.1); * matches any version.
        assertProblem(api.patch(tickets() + "/" + id, staff, "W/\"2\"", "{\"status\":\"CLOSED\"}"), 412,
                "ticket.version_mismatch");
        Reply unassign = api.patch(tickets() + "/" + id, staff, "*", "{\"assigneeId\":null,\"status\":\"CLOSED\"}");
        assertEquals(200, unassign.status(), unassign.toString());
        assertEquals(JsonValue.NULL, unassign.json().get("assigneeId"));
        assertEquals(3, unassign.json().getInt("version"));

        // Triage is staff work; a customer still edits what they wrote.
        assertProblem(api.patch(tickets() + "/" + id, customer, "3", "{\"priority\":\"URGENT\"}"), 403, "ticket.staff_only");
        Reply edited = api.patch(tickets() + "/" + id, customer, "3", "{\"body\":\"Out now.\",\"status\":\"OPEN\"}");
        assertEquals(200, edited.status(), edited.toString());
        assertEquals(4, edited.json().getInt("version"));
        assertEquals(4L, data.count("SELECT version FROM ticket WHERE id = ?::uuid", id));
    }

    @Test
    void ticketInputIsValidatedAndNothingIsCreated() {
        String owner = Tokens.of(t.owner());
        String customer = Tokens.of(t.customer());
        String longTitle = "x".repeat(201);
        assertProblem(api.post(tickets(), owner, "{\"title\":\"" + longTitle + "\"}"), 400, "ticket.invalid");
        assertProblem(api.post(tickets(), owner, "{\"title\":\"   \"}"), 400, "ticket.invalid");
        assertProblem(api.post(tickets(), owner, "{}"), 400, "ticket.invalid");
        assertProblem(api.post(tickets(), owner, "{\"title\":\"t\",\"body\":\"" + "b".repeat(20_001) + "\"}"), 400,
                "ticket.invalid");
        assertProblem(api.post(tickets(), owner, "{\"title\":\"t\",\"priority\":\"SOON\"}"), 400, "ticket.invalid");
        assertProblem(api.post(tickets(), owner, "{\"title\":\"t\",\"assigneeId\":\"nope\"}"), 400, "ticket.invalid");
        assertProblem(api.post(tickets(), owner, "{\"title\":\"t\",\"assigneeId\":\"" + t.customer() + "\"}"), 400,
                "ticket.assignee_invalid");
        assertProblem(api.post(tickets(), owner, "{\"title\":\"t\",\"assigneeId\":\"" + t.outsider() + "\"}"), 400,
                "ticket.assignee_invalid");
        assertProblem(api.post(tickets(), customer, "{\"title\":\"t\",\"assigneeId\":\"" + t.staff() + "\"}"), 403,
                "ticket.staff_only");
        assertProblem(api.post(tickets(), owner, "{\"title\":7}"), 400, "request.malformed");
        assertProblem(api.post(tickets(), owner, "{\"title\":null}"), 400, "request.malformed");
        assertProblem(api.post(tickets(), owner, "{\"title\":\"t\",\"version\":5}"), 400, "request.malformed");
        assertEquals(0L, data.count("SELECT count(*) FROM ticket WHERE team_id = ?", t.id()));

        assertEquals(201, api.post(tickets(), owner, "{\"title\":\"" + "y".repeat(200) + "\",\"priority\":\"urgent\"}").status(),
                "200 characters and a lower-case priority are fine");
    }

    @Test
    void ticketListFiltersAndKeysetPagination() {
        Instant base = Instant.parse("2026-03-10T12:00:00Z");
        List<String> all = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            UUID assignee = i % 2 == 0 ? t.staff() : null;
            UUID requester = i < 5 ? t.owner() : t.customer();
            String status = i % 3 == 0 ? "CLOSED" : "OPEN";
            all.add(data.ticket(t.id(), requester, assignee, (i == 4 ? "Needle " : "Ticket ") + i, status,
                    base.plus(Duration.ofDays(i))).toString());
        }
        String owner = Tokens.of(t.owner());

        // All pages of 3, in keyset order, the last with nextCursor null.
        List<String> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            Reply page = api.get(tickets() + "?limit=3" + (cursor == null ? "" : "&cursor=" + cursor), owner);
            assertEquals(200, page.status(), page.toString());
            page.json().getJsonArray("items").forEach(v -> seen.add(v.asJsonObject().getString("id")));
            JsonValue next = page.json().get("nextCursor");
            cursor = next.getValueType() == JsonValue.ValueType.NULL ? null : page.json().getString("nextCursor");
            pages++;
        } while (cursor != null && pages < 10);
        assertEquals(all, seen, "pages follow (createdAt, id) and cover every ticket once");
        assertEquals(3, pages);

        assertEquals(List.of(all.get(1), all.get(2), all.get(4), all.get(5)), ids(api.get(tickets() + "?status=OPEN", owner)));
        assertEquals(List.of(all.get(0), all.get(1), all.get(2), all.get(3), all.get(4), all.get(5), all.get(6)),
                ids(api.get(tickets() + "?status=OPEN,closed", owner)));
        assertEquals(List.of(all.get(0), all.get(3), all.get(6)),
                ids(api.get(tickets() + "?status=CLOSED&status=PENDING", owner)));
        assertEquals(List.of(all.get(0), all.get(2), all.get(4), all.get(6)),
                ids(api.get(tickets() + "?assigneeId=" + t.staff(), owner)));
        assertEquals(List.of(all.get(4)), ids(api.get(tickets() + "?q=needle", owner)));
        assertEquals(List.of(all.get(2), all.get(3)),
                ids(api.get(tickets() + "?createdFrom=2026-03-12&createdTo=2026-03-13", owner)), "dates are whole UTC days");
        assertEquals(List.of(all.get(5), all.get(6)),
                ids(api.get(tickets() + "?createdFrom=" + enc("2026-03-15T09:00:00-03:00"), owner)));

        // A customer sees only what they requested or are assigned to.
        assertEquals(List.of(all.get(5), all.get(6)), ids(api.get(tickets(), Tokens.of(t.customer()))));

        assertProblem(api.get(tickets() + "?status=DONE", owner), 400, "filters.invalid");
        assertProblem(api.get(tickets() + "?assigneeId=bob", owner), 400, "filters.invalid");
        assertProblem(api.get(tickets() + "?createdFrom=yesterday", owner), 400, "filters.invalid");
        assertProblem(api.get(tickets() + "?createdFrom=2026-03-13&createdTo=2026-03-12", owner), 400, "filters.invalid");
        assertProblem(api.get(tickets() + "?q=" + "q".repeat(201), owner), 400, "filters.invalid");
        assertProblem(api.get(tickets() + "?limit=0", owner), 400, "page.limit");
        assertProblem(api.get(tickets() + "?limit=501", owner), 400, "page.limit");
        assertProblem(api.get(tickets() + "?limit=abc", owner), 400, "page.limit");
        assertProblem(api.get(tickets() + "?limit=99999999999", owner), 400, "page.limit");
        assertProblem(api.get(tickets() + "?cursor=not-a-cursor", owner), 400, "page.cursor");
        assertProblem(api.get(tickets() + "?cursor=" + enc("%%%"), owner), 400, "page.cursor");
    }

    @Test
    void exportIsAcceptedRunsAndDownloads() {
        data.ticket(t.id(), t.customer(), t.staff(), "=SUM(A1:A2)");
        data.ticket(t.id(), t.owner(), t.staff(), "Staff only");
        String customer = Tokens.of(t.customer());
        Reply created = api.post(tasks(), customer,
                "{\"kind\":\"EXPORT\",\"scope\":\"SELF\",\"filters\":{\"status\":[\"OPEN\"]},\"timeZone\":\"Asia/Shanghai\"}");
        assertEquals(202, created.status(), created.toString());
        JsonObject task = created.json();
        assertTaskShape(task);
        assertEquals(created.header("Location"), task.getJsonObject("links").getString("self"));
        assertEquals("/api/v1/tasks/" + task.getString("id"), created.header("Location"));
        assertEquals("EXPORT", task.getString("kind"));
        assertEquals("SELF", task.getString("scope"));
        assertEquals(t.customer().toString(), task.getString("ownerId"));
        assertEquals(0, task.getInt("run"));
        assertEquals(1, task.getInt("displayRun"));
        assertEquals("Asia/Shanghai", task.getJsonObject("filters").getString("timeZone"), "filters is a JSON object");
        assertEquals("OPEN", task.getJsonObject("filters").getJsonArray("status").getString(0));
        assertFalse(task.getJsonObject("links").containsKey("result"));
        assertEquals(JsonValue.NULL, task.get("scheduleId"), "not an occurrence of a schedule");
        assertEquals(JsonValue.NULL, task.get("slotAt"));
        assertFalse(task.getJsonObject("links").containsKey("schedule"));

        JsonObject done = awaitStatus(task.getString("id"), customer, "COMPLETED");
        assertTaskShape(done);
        assertEquals(100, done.getInt("progress"));
        assertNotNull(done.getString("resultSummary", null));
        assertIsoWithOffset(done.getString("expiresAt"));
        assertEquals("/api/v1/tasks/" + task.getString("id") + "/result", done.getJsonObject("links").getString("result"));
        assertFalse(done.getJsonObject("links").containsKey("retry"));

        // R43: the worker's one execution, on the record with its worker, outcome and duration
        String executionsLink = done.getJsonObject("links").getString("executions");
        assertEquals("/api/v1/tasks/" + task.getString("id") + "/executions", executionsLink);
        Reply executions = api.get(executionsLink.substring("/api/v1/".length()), customer);
        assertEquals(200, executions.status(), executions.toString());
        JsonArray items = executions.json().getJsonArray("items");
        assertEquals(1, items.size(), executions.toString());
        JsonObject execution = items.getJsonObject(0);
        assertEquals(List.of("executionId", "run", "attempt", "worker", "claimedAt", "endedAt", "outcome", "cause",
                "durationMs", "progress", "takenOverBy"), List.copyOf(execution.keySet()));
        assertEquals("COMPLETED", execution.getString("outcome"));
        assertEquals(0, execution.getInt("run"));
        assertEquals(1, execution.getInt("attempt"));
        assertEquals(100, execution.getInt("progress"));
        assertFalse(execution.getString("worker").isBlank(), "the claiming worker");
        assertIsoWithOffset(execution.getString("claimedAt"));
        assertIsoWithOffset(execution.getString("endedAt"));
        assertTrue(execution.getJsonNumber("durationMs").longValue() >= 0);
        assertEquals(JsonValue.NULL, execution.get("cause"));
        assertEquals(JsonValue.NULL, execution.get("takenOverBy"));
        assertEquals(JsonValue.NULL, executions.json().get("nextCursor"));

        Reply csv = api.get("tasks/" + task.getString("id") + "/result", customer);
        assertEquals(200, csv.status(), csv.toString());
        assertEquals("text/csv;charset=UTF-8", csv.header("Content-Type").replace(" ", ""));
        String disposition = csv.header("Content-Disposition");
        assertTrue(disposition.startsWith("attachment; filename=\"") && disposition.endsWith(".csv\""), disposition);
        assertEquals((byte) 0xEF, csv.bytes()[0], "UTF-8 BOM");
        assertTrue(csv.body().contains("SUM(A1:A2)"), "the customer's own ticket is exported");
        assertFalse(csv.body().contains("Staff only"), "a SELF export holds only what the owner may see");

        Reply listed = api.get(tasks() + "?kind=export&status=COMPLETED", customer);
        assertEquals(200, listed.status(), listed.toString());
        assertEquals(List.of(task.getString("id")), ids(listed));
        assertProblem(api.post("tasks/" + task.getString("id") + "/retry", customer, null), 409, "task.not_failed");
    }

    /**
     * R45: tracing is off by default (no {@code otel.sdk.disabled=false}): even a request that brings a W3C
     * {@code traceparent} leaves none with the task and its queue job carries none.
     */
    @Test
    void tracingIsOffByDefault() {
        UUID ticket = data.ticket(t.id(), t.customer(), t.staff(), "Untraced");
        String owner = Tokens.of(t.owner());
        Reply created = api.send("POST", api.uri(tasks()), owner,
                "{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket + "\",\"message\":\"Please look\"}",
                List.of("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
        assertEquals(202, created.status(), created.toString());
        String task = created.json().getString("id");
        awaitStatus(task, owner, "COMPLETED");
        assertEquals(0L, data.count("SELECT count(*) FROM background_task WHERE id = ?::uuid"
                + " AND (trace_parent IS NOT NULL OR trace_span IS NOT NULL)", task), "no trace stored with the task");
        try (ClientQueue queue = new ClientQueue(SERVER.redisPrefix())) {
            String payload = queue.queue().getJob(task + "-0").orElseThrow().data();
            JsonObject job = jakarta.json.Json.createReader(new java.io.StringReader(payload)).readObject();
            assertEquals(task, job.getString("taskId"));
            assertFalse(job.containsKey("traceparent"), "the job carries no trace context: " + payload);
        }
    }

    @Test
    void reminderNotifiesAndWritesAnEvent() {
        UUID ticket = data.ticket(t.id(), t.customer(), t.staff(), "Remind me");
        String owner = Tokens.of(t.owner());
        Reply created = api.post(tasks(), owner,
                "{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket + "\",\"message\":\"Please look\"}");
        assertEquals(202, created.status(), created.toString());
        assertTaskShape(created.json());
        assertEquals("TEAM", created.json().getString("scope"));
        awaitStatus(created.json().getString("id"), owner, "COMPLETED");

        Reply notes = api.get("me/notifications", Tokens.of(t.staff()));
        assertEquals(200, notes.status(), notes.toString());
        JsonObject note = notes.json().getJsonArray("items").getJsonObject(0);
        assertEquals("Please look", note.getString("message"));
        assertEquals(ticket.toString(), note.getString("ticketId"));
        assertEquals(JsonValue.NULL, note.get("readAt"));
        assertEquals(JsonValue.NULL, notes.json().get("nextCursor"));

        Reply events = api.get("teams/" + t.id() + "/events?ticketId=" + ticket, owner);
        assertEquals(200, events.status(), events.toString());
        assertEquals(1, events.json().getJsonArray("items").size());
        JsonObject event = events.json().getJsonArray("items").getJsonObject(0);
        assertEquals(JsonValue.ValueType.OBJECT, event.get("payload").getValueType(), "payload is a JSON object");
        assertEquals(ticket.toString(), event.getString("ticketId"));
        assertEquals(0, api.get("teams/" + t.id() + "/events?ticketId=" + UUID.randomUUID(), owner).json()
                .getJsonArray("items").size());
        assertProblem(api.get("teams/" + t.id() + "/events?ticketId=x", owner), 400, "filters.invalid");
        assertProblem(api.get("teams/" + t.id() + "/events?cursor=@@", owner), 400, "page.cursor");
    }

    @Test
    void invalidTaskRequestsAreRefusedAndCreateNothing() {
        String owner = Tokens.of(t.owner());
        UUID ticket = data.ticket(t.id(), t.customer(), null, "Unassigned");
        Map<String, String> bad = Map.ofEntries(
                Map.entry("{\"scope\":\"SELF\"}", "task.invalid"),
                Map.entry("{\"kind\":\"IMPORT\"}", "task.invalid"),
                Map.entry("{\"kind\":\"EXPORT\",\"scope\":\"EVERYONE\"}", "task.invalid"),
                Map.entry("{\"kind\":\"EXPORT\",\"timeZone\":\"Mars/Olympus\"}", "filters.invalid"),
                Map.entry("{\"kind\":\"EXPORT\",\"filters\":{\"status\":[\"LOST\"]}}", "filters.invalid"),
                Map.entry("{\"kind\":\"EXPORT\",\"filters\":{\"status\":[1]}}", "filters.invalid"),
                Map.entry("{\"kind\":\"EXPORT\",\"filters\":{\"owner\":\"me\"}}", "filters.invalid"),
                Map.entry("{\"kind\":\"EXPORT\",\"filters\":{\"createdFrom\":\"soon\"}}", "filters.invalid"),
                Map.entry("{\"kind\":\"EXPORT\",\"filters\":{\"createdFrom\":\"2026-02-02\",\"createdTo\":\"2026-02-01\"}}",
                        "filters.invalid"),
                Map.entry("{\"kind\":\"EXPORT\",\"filters\":{\"assigneeId\":\"zed\"}}", "filters.invalid"),
                Map.entry("{\"kind\":\"EXPORT\",\"filters\":[\"OPEN\"]}", "filters.invalid"),
                Map.entry("{\"kind\":\"EXPORT\",\"filters\":\"status=OPEN\"}", "filters.invalid"),
                Map.entry("{\"kind\":\"REMINDER\",\"ticketId\":\"x\",\"message\":\"m\"}", "reminder.invalid"),
                Map.entry("{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket + "\",\"message\":\"\"}", "reminder.invalid"),
                Map.entry("{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket + "\",\"message\":\"m\"}", "reminder.no_assignee"),
                Map.entry("{\"kind\":\"REMINDER\",\"ticketId\":\"" + UUID.randomUUID() + "\",\"message\":\"m\"}",
                        "ticket.not_found"),
                Map.entry("{\"kind\":\"EXPORT\",\"filter\":{}}", "request.malformed"),
                Map.entry("{\"kind\":[\"EXPORT\"]}", "request.malformed"),
                Map.entry("{\"kind\":\"EXPORT\",\"timeZone\":9}", "request.malformed"),
                Map.entry("[{\"kind\":\"EXPORT\"}]", "request.malformed"),
                Map.entry("{\"kind\":\"EXPORT\"", "request.malformed"),
                Map.entry("null", "request.malformed"),
                Map.entry("", "request.malformed"));
        bad.forEach((body, code) -> {
            Reply r = api.post(tasks(), owner, body);
            assertTrue(r.status() == 400 || r.status() == 404, body + " -> " + r);
            assertProblem(r, r.status(), code);
        });
        assertEquals(0L, data.count("SELECT count(*) FROM background_task WHERE team_id = ?", t.id()),
                "no refused request created a task");

        assertProblem(api.get(tasks() + "?limit=0", owner), 400, "page.limit");
        assertProblem(api.get(tasks() + "?limit=many", owner), 400, "page.limit");
        assertProblem(api.get(tasks() + "?cursor=xyz", owner), 400, "page.cursor");
        assertProblem(api.get(tasks() + "?status=DONE", owner), 400, "task.invalid");
        assertProblem(api.get(tasks() + "?kind=IMPORT", owner), 400, "task.invalid");
    }

    @Test
    void oddRequestsGetProblemsNotServerErrors() {
        String owner = Tokens.of(t.owner());
        assertProblem(api.get("tasks/not-a-uuid", owner), 404, "task.not_found");
        assertProblem(api.get("tasks/" + UUID.randomUUID(), owner), 404, "task.not_found");
        assertProblem(api.get("tasks/%20/result", owner), 404, "task.not_found");
        assertProblem(api.post("tasks/123/retry", owner, null), 404, "task.not_found");
        assertProblem(api.get("teams/xyz/tickets", owner), 404, "team.not_found");
        assertProblem(api.get("teams/" + UUID.randomUUID() + "/tickets", owner), 404, "team.not_found");
        assertProblem(api.get("teams/" + t.id() + "/tickets/zzz", owner), 404, "ticket.not_found");
        assertProblem(api.get("teams/" + t.id() + "/tickets/" + UUID.randomUUID(), owner), 404, "ticket.not_found");
        assertProblem(api.get("teams/" + t.id() + "/events?limit=-1", owner), 400, "page.limit");
        assertProblem(api.get("no/such/path", owner), 404, "resource.not_found");
        assertProblem(api.send("DELETE", api.uri("me"), owner, null, null), 405, "request.method_not_allowed");
        assertProblem(api.send("PUT", api.uri(tickets()), owner, "{}", null), 405, "request.method_not_allowed");
        assertProblem(api.send("POST", api.uri(tickets()), owner, null, List.of("Content-Type", "text/plain")), 415,
                "request.unsupported_media_type");
        assertProblem(api.send("POST", api.uri(tickets()), owner, null, List.of("Content-Type", "application/xml")), 415,
                "request.unsupported_media_type");
        // PostgreSQL text cannot hold NUL or unpaired surrogates: refused up front, not a 500.
        assertProblem(api.post(tickets(), owner, "{\"title\":\"\\ud800\"}"), 400, "request.malformed");
        assertProblem(api.post(tickets(), owner, "{\"title\":\"a\\u0000b\"}"), 400, "request.malformed");
        assertProblem(api.post(tasks(), owner, "{\"kind\":\"EXPORT\",\"filters\":{\"q\":\"\\u0000\"}}"), 400,
                "request.malformed");
        assertProblem(api.get(tickets() + "?q=%00", owner), 400, "request.malformed");
        assertEquals(0L, data.count("SELECT count(*) FROM ticket WHERE team_id = ?", t.id()));
        assertProblem(api.post(tickets(), owner, "{\"title\":\"a\",\"title\":{}}"), 400, "request.malformed");
        assertProblem(api.post(tickets(), owner, "{\"title\":1e999}"), 400, "request.malformed");
        assertProblem(api.post(tickets(), owner, "\u0000"), 400, "request.malformed");
        Reply emoji = api.post(tickets(), owner, "{\"title\":\"" + "\ud83d\udd25".repeat(200) + "\"}");
        assertEquals(201, emoji.status(), "characters, not UTF-16 units or bytes, are counted: " + emoji);
    }

    @Test
    void meShowsTheCallerAndTheirTeams() {
        Reply me = api.get("me", Tokens.of(t.owner()));
        assertEquals(200, me.status(), me.toString());
        JsonObject body = me.json();
        assertEquals(t.owner().toString(), body.getString("id"));
        assertTrue(body.getString("username").startsWith("owner-"));
        assertNotNull(body.getString("displayName"));
        assertEquals(1, body.getJsonArray("memberships").size());
        JsonObject m = body.getJsonArray("memberships").getJsonObject(0);
        assertEquals(t.id().toString(), m.getString("teamId"));
        assertEquals(t.name(), m.getString("teamName"));
        assertEquals("OWNER", m.getString("role"));

        data.member(t.otherTeam(), t.owner(), "CUSTOMER");
        assertEquals(2, api.get("me", Tokens.of(t.owner())).json().getJsonArray("memberships").size());

        Reply notes = api.get("me/notifications", Tokens.of(t.owner()));
        assertEquals(200, notes.status(), notes.toString());
        assertEquals(0, notes.json().getJsonArray("items").size());
        assertEquals(JsonValue.NULL, notes.json().get("nextCursor"));
        assertProblem(api.get("me/notifications?limit=x", Tokens.of(t.owner())), 400, "page.limit");

        assertProblem(api.get("me", Tokens.of(UUID.randomUUID())), 401, "auth.required");
    }

    private String tickets() {
        return "teams/" + t.id() + "/tickets";
    }

    private String tasks() {
        return "teams/" + t.id() + "/tasks";
    }

    private JsonObject awaitStatus(String taskId, String token, String status) {
        return api.awaitStatus(taskId, token, status, TASK_TIMEOUT);
    }

    static void assertTaskShape(JsonObject task) {
        assertEquals(TASK_KEYS, task.keySet(), "task body keys (no executionId, no CSV)");
        assertEquals(task.getInt("run") + 1, task.getInt("displayRun"));
        assertEquals(JsonValue.ValueType.OBJECT, task.get("filters").getValueType());
        assertIsoWithOffset(task.getString("createdAt"));
        assertIsoWithOffset(task.getString("updatedAt"));
        assertTrue(task.getJsonObject("links").containsKey("self"));
    }

    private static void assertIsoWithOffset(String timestamp) {
        assertNotNull(java.time.OffsetDateTime.parse(timestamp), timestamp);
    }

    static void assertProblem(Reply r, int status, String code) {
        assertEquals(status, r.status(), r.toString());
        assertTrue(r.header("Content-Type").startsWith("application/problem+json"), r.toString());
        JsonObject p = r.json();
        assertEquals(status, p.getInt("status"), r.toString());
        assertNotNull(p.getString("type"));
        assertNotNull(p.getString("title"));
        assertNotNull(p.getString("detail"));
        if (code != null) {
            assertEquals(code, p.getString("code"), r.toString());
        } else {
            assertNotNull(p.getString("code"));
        }
        assertFalse(r.body().contains("Exception") || r.body().contains("\tat "), "no stack trace: " + r);
    }

    private static List<String> ids(Reply page) {
        assertEquals(200, page.status(), page.toString());
        List<String> ids = new ArrayList<>();
        page.json().getJsonArray("items").forEach(v -> ids.add(v.asJsonObject().getString("id")));
        return ids;
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
