package com.teamdesk.tasks.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.teamdesk.tasks.it.lifecycle.SharedServer;
import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.RawHttp;
import com.teamdesk.tasks.it.support.TestData;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.Tokens;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Generated hostile input over every endpoint (issue 11): at least {@value #REQUESTS} requests
 * with broken bodies (trailing content, deep nesting, invalid UTF-8, wrong types, huge), broken
 * headers (Content-Type, Accept, If-Match, Host, over-long), broken paths (bad ids, encoded
 * {@code ..}, braces), broken query parameters (instants out of range, crafted cursors) and
 * broken tokens. For each answer: status below 500; every 4xx is {@code application/problem+json}
 * with a {@code code} and never names the server; a 405 carries {@code Allow}; after every refused
 * request the counts of tickets, tasks, notifications, system events and schedules are unchanged; no link
 * ever points at the {@code Host} the client sent.
 *
 * <p>The randomness is seeded: the seed is printed, and {@code -Dhostile.seed=<n>} replays a run.
 * Worker and timers are off, so only the requests themselves can change a row.
 */
@Execution(ExecutionMode.SAME_THREAD)
class HostileInputIT {
    @RegisterExtension
    static final SharedServer SERVER = SharedServer.apiOnly();

    static final int REQUESTS = 2400;
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NEVER).build();

    final URL url = SERVER.url();

    final TestData data = TestData.fromEnvironment();

    /** One generated request. */
    record Req(String method, String target, byte[] body, List<String> headers, boolean raw) {
        @Override
        public String toString() {
            String b = body == null ? "" : new String(body, 0, Math.min(body.length, 160), StandardCharsets.ISO_8859_1);
            List<String> hs = headers.stream().map(h -> h.length() > 120 ? h.substring(0, 120) + "..." : h).toList();
            return method + " " + (target.length() > 200 ? target.substring(0, 200) + "..." : target) + " " + hs
                    + (body == null ? "" : " body[" + body.length + "]=" + b);
        }
    }

    /** An answer, from HttpClient or a raw socket. */
    record Ans(int status, String contentType, String allow, String location, String body) {
    }

    /**
     * Issue 34: the status line carries the standard reason phrase (RFC 9110) also where the HTTP engine has
     * none (422, 428: it said {@code CUSTOM}) or an older one (413, 414); the body stays problem+json.
     */
    @Test
    void everyStatusLineCarriesItsStandardReasonPhrase() {
        URI root = Api.at(url).root();
        TestTeam t = data.newTeam();
        UUID ticket = data.ticket(t.id(), t.customer(), t.staff(), "Status line target");
        String auth = "Authorization: Bearer " + Tokens.of(t.owner());
        String tasks = "/api/v1/teams/" + t.id() + "/tasks";
        String key = "Idempotency-Key: " + UUID.randomUUID();
        byte[] first = "{\"kind\":\"EXPORT\",\"scope\":\"TEAM\",\"filters\":{},\"timeZone\":\"UTC\"}"
                .getBytes(StandardCharsets.UTF_8);
        byte[] second = "{\"kind\":\"EXPORT\",\"scope\":\"SELF\",\"filters\":{},\"timeZone\":\"UTC\"}"
                .getBytes(StandardCharsets.UTF_8);
        RawHttp.Answer created = RawHttp.send(root, "POST", tasks, first, auth, key, "Content-Type: application/json");
        assertEquals(202, created.status(), created.text());
        Map<String, RawHttp.Answer> answers = new java.util.LinkedHashMap<>();
        answers.put("HTTP/1.1 422 Unprocessable Content", RawHttp.send(root, "POST", tasks, second, auth, key,
                "Content-Type: application/json"));
        answers.put("HTTP/1.1 428 Precondition Required", RawHttp.send(root, "PATCH", "/api/v1/teams/" + t.id()
                + "/tickets/" + ticket, "{\"status\":\"PENDING\"}".getBytes(StandardCharsets.UTF_8), auth,
                "Content-Type: application/json"));
        answers.put("HTTP/1.1 414 URI Too Long", RawHttp.send(root, "GET", "/api/v1/teams/" + "a".repeat(9000), null,
                auth));
        answers.put("HTTP/1.1 413 Content Too Large", RawHttp.send(root, "POST", tasks,
                new byte[1_100_000], auth, "Content-Type: application/json"));
        answers.put("HTTP/1.1 404 Not Found", RawHttp.send(root, "GET", "/api/v1/nope", null, auth));
        answers.forEach((line, a) -> {
            assertEquals(line, a.statusLine(), a.text());
            assertTrue(a.header("Content-Type").startsWith("application/problem+json"), line + ": " + a.headers());
        });
    }

    @Test
    void noHostileRequestGets5xxOrANonProblemOrChangesARow() throws Exception {
        long seed = Long.getLong("hostile.seed", System.nanoTime());
        System.out.println("HostileInputIT seed = " + seed + " (replay with -Dhostile.seed=" + seed + ")");
        Random rnd = new Random(seed);
        Api api = Api.at(url);
        URI root = api.root();
        TestTeam t = data.newTeam();
        UUID ticket = data.ticket(t.id(), t.customer(), t.staff(), "Hostile target");
        UUID export = data.completedExport(t.id(), t.owner(), "TEAM");
        UUID failed = data.task(t.id(), t.owner(), "EXPORT", "TEAM", "FAILED", "{\"timeZone\":\"UTC\"}", null);
        UUID schedule = data.schedule(t.id(), t.owner(), "EXPORT", "TEAM", "{\"timeZone\":\"UTC\"}", true);
        UUID doomed = data.schedule(t.id(), t.owner(), "EXPORT", "TEAM", "{\"timeZone\":\"UTC\"}", true);
        String owner = Tokens.of(t.owner());
        String customer = Tokens.of(t.customer());
        Instant now = Instant.now();
        List<Supplier<String>> badTokens = List.of(
                () -> Tokens.expired(t.owner()),
                () -> Tokens.foreign(t.owner()),
                () -> Tokens.unsigned(Tokens.claims(t.owner(), now, now.plusSeconds(3600))),
                () -> Tokens.signed(Tokens.claims(t.owner(), now, now.plusSeconds(3600))
                        .add("nbf", now.plusSeconds(3600).getEpochSecond())),
                () -> Tokens.signed(Tokens.claims(t.owner(), now, now.plusSeconds(3600)).add("sub", 7)),
                () -> "garbage", () -> "a.b.c", () -> "x".repeat(9000), () -> Tokens.of(UUID.randomUUID()));
        String team = "teams/" + t.id();
        String[] endpoints = {
            "GET " + team + "/tickets", "POST " + team + "/tickets", "GET " + team + "/tickets/" + ticket,
            "PATCH " + team + "/tickets/" + ticket, "POST " + team + "/tasks", "GET " + team + "/tasks",
            "GET tasks/" + export, "POST tasks/" + failed + "/retry", "POST tasks/" + export + "/retry",
            "GET tasks/" + export + "/result", "GET tasks/" + export + "/executions", "GET me", "GET me/notifications", "GET " + team + "/events",
            "DELETE " + team + "/tickets/" + ticket, "PUT tasks/" + export, "GET nope", "POST me",
            // issue 13: cancel; issue 14: a finished task's event stream (it ends) and the operator API
            "POST tasks/" + export + "/cancel", "POST tasks/" + failed + "/cancel", "GET tasks/" + export + "/events",
            "GET admin/overview", "GET admin/tasks", "GET admin/tasks/" + export, "POST admin/tasks/retry",
            "GET admin/timers", "POST admin/timers/dispatch/pause", "POST admin/timers/nope/run", "GET admin/workers",
            "GET admin/queue", "GET admin/streams", "GET kinds",
            // issue 30: a team's cap of running tasks
            "GET admin/limits", "PUT admin/teams/" + t.id() + "/limits", "PUT admin/teams/" + t.id() + "/limits/EXPORT",
            // issue 31: schedules, and the operator's view of them
            "POST " + team + "/schedules", "GET " + team + "/schedules", "GET schedules/" + schedule,
            "PATCH schedules/" + schedule, "POST schedules/" + schedule + "/pause", "POST schedules/" + schedule + "/resume",
            "POST schedules/" + schedule + "/run-now", "DELETE schedules/" + doomed, "PUT schedules/" + schedule,
            "GET admin/schedules", "POST admin/schedules/" + schedule + "/pause",
            // issue 32: the task's actions, the operator's executions across teams
            "GET tasks/" + export + "/actions", "GET admin/executions", "GET admin/executions/summary",
            // issue 53: the team's calendar and its holidays' import, SLA policies and board, replies, a ticket's SLA
            "GET " + team + "/calendar", "PUT " + team + "/calendar", "POST " + team + "/calendar/holidays",
            "GET " + team + "/sla-policies", "PUT " + team + "/sla-policies", "GET " + team + "/sla-board",
            "POST " + team + "/tickets/" + ticket + "/replies", "GET " + team + "/tickets/" + ticket + "/replies",
            "GET " + team + "/tickets/" + ticket + "/sla"};

        try (Connection db = data.connection()) {
            long[] baseline = counts(db);
            int refused = 0;
            for (int i = 0; i < REQUESTS; i++) {
                String[] ep = endpoints[rnd.nextInt(endpoints.length)].split(" ", 2);
                Req req = mutate(rnd, ep[0], ep[1], owner, customer, badTokens, t);
                Ans a = send(root, req);
                String where = "#" + i + " (seed " + seed + ") " + req + " -> " + a.status() + " " + a.contentType() + " "
                        + (a.body().length() > 300 ? a.body().substring(0, 300) : a.body());
                assertTrue(a.status() < 500, where);
                assertFalse(a.body().contains("Payara") || a.body().contains("Jersey"), "reveals the server: " + where);
                if (a.location() != null) {
                    assertFalse(a.location().contains("evil.example"), "Location from Host: " + where);
                }
                assertFalse(a.body().contains("evil.example"), "link from Host: " + where);
                if (a.status() >= 400) {
                    refused++;
                    assertTrue(a.contentType() != null && a.contentType().startsWith("application/problem+json"), where);
                    if (req.method().equals("HEAD")) {
                        continue; // a HEAD answer has no body; its status and Content-Type are checked
                    }
                    try (JsonReader r = Json.createReader(new StringReader(a.body()))) {
                        JsonObject p = r.readObject();
                        assertFalse(p.getString("code", "").isBlank(), "no code: " + where);
                        assertEquals(a.status(), p.getInt("status"), where);
                    } catch (RuntimeException e) {
                        fail("not a problem object: " + where, e);
                    }
                    if (a.status() == 405) {
                        assertTrue(a.allow() != null && !a.allow().isBlank(), "405 without Allow: " + where);
                    }
                    long[] after = counts(db);
                    if (!java.util.Arrays.equals(baseline, after)) {
                        fail("a refused request changed rows " + java.util.Arrays.toString(baseline) + " -> "
                                + java.util.Arrays.toString(after) + ": " + where);
                    }
                } else {
                    baseline = counts(db);
                }
            }
            System.out.println("HostileInputIT: " + REQUESTS + " requests, " + refused + " refused, seed " + seed);
            assertTrue(refused > REQUESTS / 2, "the generator should mostly produce refused requests: " + refused);
        }
    }

    /**
     * Issue 49: each class of input a hostile client found taken wrongly by the newer endpoints, everywhere it
     * occurs: durations that overflow an instant (items 1), numbers that overflow an {@code int} (2), non-ASCII digits
     * and Unicode case folds in names, invisible names and titles, a non-canonical If-Match, a {@code groups} claim
     * that is not an array. Each answers a 4xx problem+json with its code and changes no row.
     */
    @Test
    void eachClassOfInputTheNewerEndpointsTookWronglyIsRefused() throws Exception {
        Api api = Api.at(url);
        TestTeam t = data.newTeam();
        UUID ticket = data.ticket(t.id(), t.customer(), t.staff(), "Strict target");
        String owner = Tokens.of(t.owner());
        String ops = Tokens.with(t.outsider(), Json.createObjectBuilder()
                .add("groups", Json.createArrayBuilder().add("member").add("operator")));
        String team = "teams/" + t.id();
        Map<String, String> refused = new java.util.LinkedHashMap<>(); // "METHOD path|token|body" -> "status code"
        for (String d : new String[] {"PT100000000000000000S", "P106751991167300D", "PT9223372036854775807S",
                "-P106751991167300D", "PT-9223372036854775808S", "P99999999999999999999D"}) {
            String q = java.net.URLEncoder.encode(d, StandardCharsets.UTF_8);
            refused.put("GET admin/tasks?olderThan=" + q + "|ops|", "400 filters.invalid");
            refused.put("GET admin/executions?from=" + q + "|ops|", "400 filters.invalid");
            refused.put("GET admin/executions?to=" + q + "|ops|", "400 filters.invalid");
            refused.put("GET admin/executions/summary?from=" + q + "|ops|", "400 filters.invalid");
            refused.put("GET admin/executions/summary?to=" + q + "|ops|", "400 filters.invalid");
            refused.put("POST admin/tasks/retry|ops|{\"olderThan\":\"" + d + "\"}", "400 filters.invalid");
        }
        for (String n : new String[] {"4294967297", "4294967396", "2147483648", "-4294967295", "1e2", "1.0",
                "99999999999999999999999"}) {
            refused.put("POST admin/tasks/retry|ops|{\"limit\":" + n + "}", "400 admin.retry_limit");
            refused.put("PUT admin/teams/" + t.id() + "/limits|ops|{\"maxRunning\":" + n + "}", "400 limits.invalid");
            refused.put("PUT admin/teams/" + t.id() + "/limits/EXPORT|ops|{\"perMinute\":" + n + "}",
                    "400 limits.invalid");
        }
        for (String n : new String[] {"\u0665", "\uff15", "+5", "4294967297", "5\u2028"}) {
            String q = java.net.URLEncoder.encode(n, StandardCharsets.UTF_8);
            refused.put("GET admin/tasks?limit=" + q + "|ops|", "400 page.limit");
            refused.put("GET admin/executions?limit=" + q + "|ops|", "400 page.limit");
            refused.put("GET " + team + "/tasks?limit=" + q + "|owner|", "400 page.limit");
            refused.put("GET " + team + "/tickets?limit=" + q + "|owner|", "400 page.limit");
            refused.put("GET " + team + "/schedules?limit=" + q + "|owner|", "400 page.limit");
        }
        for (String kind : new String[] {"d\u0131gest", "DIGE\u017fT", "\u0131mport", "EXPORT\u200b", "\uff25XPORT"}) {
            String q = java.net.URLEncoder.encode(kind, StandardCharsets.UTF_8);
            refused.put("POST " + team + "/tasks|owner|{\"kind\":\"" + kind + "\"}", "400 task.invalid");
            refused.put("POST " + team + "/schedules|owner|{\"cron\":\"@daily\",\"timeZone\":\"UTC\",\"task\":"
                    + "{\"kind\":\"" + kind + "\"}}", "400 task.invalid");
            refused.put("PUT admin/teams/" + t.id() + "/limits/" + q + "|ops|{\"perMinute\":5}", "400 limits.invalid");
            refused.put("GET admin/tasks?kind=" + q + "|ops|", "400 filters.invalid");
            refused.put("GET admin/tasks?status=" + java.net.URLEncoder.encode("fa\u0131led", StandardCharsets.UTF_8)
                    + "|ops|", "400 filters.invalid");
        }
        refused.put("POST " + team + "/tasks|owner|{\"kind\":\"EXPORT\",\"scope\":\"S\u0130LF\"}", "400 task.invalid");
        refused.put("POST admin/tasks/retry|ops|{\"status\":\"fa\u0131led\"}", "400 filters.invalid");
        refused.put("POST " + team + "/tasks|owner|{\"kind\":\"REMINDER\",\"ticketId\":\"" + ticket
                + "\",\"message\":\"m\",\"recipients\":\"ass\u0131gnee\"}", "400 reminder.invalid");
        refused.put("POST " + team + "/tickets|owner|{\"title\":\"t\",\"priority\":\"h\u0131gh\"}", "400 ticket.invalid");
        for (String blank : new String[] {"\u200b", "\u200b\u200c\u200d", "\ufeff", "\u3164", " \u2800 ", "\u0301"}) {
            refused.put("POST " + team + "/tickets|owner|{\"title\":\"" + blank + "\"}", "400 ticket.invalid");
            refused.put("POST " + team + "/schedules|owner|{\"name\":\"" + blank + "\",\"cron\":\"@daily\","
                    + "\"timeZone\":\"UTC\",\"task\":{\"kind\":\"EXPORT\",\"scope\":\"SELF\"}}", "400 schedule.invalid");
        }
        for (String tag : new String[] {"\"+1\"", "+1", "\"01\"", "\"1.0\""}) {
            refused.put("PATCH " + team + "/tickets/" + ticket + "|owner|" + tag + "|{\"title\":\"x\"}",
                    "400 ticket.if_match_invalid");
        }
        for (JsonValueKind groups : JsonValueKind.values()) {
            refused.put("GET admin/overview|groups:" + groups + "|", "401 auth.required");
            refused.put("GET me|groups:" + groups + "|", "401 auth.required");
        }

        try (Connection db = data.connection()) {
            long[] before = counts(db);
            refused.forEach((request, expected) -> {
                String[] r = request.split("\\|", -1);
                String[] line = r[0].split(" ", 2);
                String token = switch (r[1]) {
                    case "ops" -> ops;
                    case "owner" -> owner;
                    default -> Tokens.with(t.owner(), Json.createObjectBuilder().add("groups",
                            JsonValueKind.valueOf(r[1].substring("groups:".length())).value));
                };
                String ifMatch = r.length == 4 ? r[2] : null;
                String body = r[r.length - 1].isEmpty() ? null : r[r.length - 1];
                Api.Reply a = api.send(line[0], api.uri(line[1]), token, body, ifMatch == null ? null
                        : List.of("If-Match", ifMatch));
                String[] e = expected.split(" ");
                ApiIT.assertProblem(a, Integer.parseInt(e[0]), e[1]);
            });
            assertTrue(java.util.Arrays.equals(before, counts(db)), "a refused request changed a row");
        }
        // what stays accepted
        assertEquals(200, api.get("admin/tasks?olderThan=PT10M&limit=5", ops).status());
        assertEquals(200, api.get("admin/executions/summary?from=P3650D", ops).status());
        assertEquals(200, api.get(team + "/tasks?kind=digest&limit=05", owner).status(), "ASCII any case, leading zero");
        Api.Reply retried = api.post("admin/tasks/retry", ops, "{\"team\":\"" + t.id() + "\",\"limit\":500}");
        assertEquals(200, retried.status(), retried.toString());
        assertEquals(500, retried.json().getInt("limit"));
    }

    /** A {@code groups} claim of another shape than MP-JWT's array of strings. */
    enum JsonValueKind {
        STRING(Json.createValue("operator")), MEMBER_STRING(Json.createValue("member")),
        ARRAY_OF_NUMBER(Json.createArrayBuilder().add("member").add(7).build()),
        OBJECT(Json.createObjectBuilder().add("operator", true).build()), NUMBER(Json.createValue(1));

        final jakarta.json.JsonValue value;

        JsonValueKind(jakarta.json.JsonValue value) {
            this.value = value;
        }
    }

    private static long[] counts(Connection db) throws SQLException {
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM ticket),"
                + " (SELECT count(*) FROM background_task), (SELECT count(*) FROM notification),"
                + " (SELECT count(*) FROM system_event), (SELECT count(*) FROM task_schedule),"
                + " (SELECT coalesce(sum(version), 0) FROM team_calendar), (SELECT count(*) FROM sla_policy),"
                + " (SELECT count(*) FROM ticket_reply), (SELECT coalesce(sum(version), 0) FROM ticket_sla_clock)")) {
            rs.next();
            long[] out = new long[9];
            for (int i = 0; i < out.length; i++) {
                out[i] = rs.getLong(i + 1);
            }
            return out;
        }
    }

    // ---------------------------------------------------------------- the generator

    private static final String[] BAD_BODIES = {
        "{\"title\":\"a\"}garbage", "{\"title\":\"a\"}{\"title\":\"b\"}", "{\"title\":\"a\"} /* c */", "{\"title\":\"a\"} // c",
        "[]", "\"text\"", "42", "null", "", " ", "{", "}", "{\"title\":}", "{'title':'a'}", "{\"title\":\"a\",}",
        "{\"title\":\"\\u0000\"}", "{\"title\":\"\\ud800\"}", "{\"title\":\"\\udc00x\"}", "{\"nope\":1}", "{\"title\":1}",
        "{\"title\":null}", "{\"title\":[\"a\"]}", "{\"title\":{\"a\":1}}", "{\"title\":\"" + "t".repeat(5000) + "\"}",
        "{\"kind\":\"EXPORT\",\"filters\":{\"createdFrom\":\"+999999-01-01T00:00:00Z\"}}",
        "{\"kind\":\"EXPORT\",\"filters\":{\"createdTo\":\"-999999-01-01T00:00:00Z\"}}",
        "{\"kind\":\"EXPORT\",\"filters\":{\"createdFrom\":\"0000-12-31\"}}",
        "{\"kind\":\"EXPORT\",\"filters\":{\"status\":[\"NOPE\"]}}", "{\"kind\":\"EXPORT\",\"filters\":[]}",
        "{\"kind\":\"EXPORT\",\"timeZone\":\"Mars/Olympus\"}", "{\"kind\":\"EXPORT\",\"scope\":\"WORLD\"}",
        "{\"kind\":\"NOPE\"}", "{\"kind\":\"REMINDER\",\"ticketId\":\"x\"}", "{\"kind\":\"REMINDER\",\"ticketId\":null}",
        "{\"kind\":\"EXPORT\",\"filters\":{\"q\":\"" + "q".repeat(300) + "\"}}",
        "{\"status\":\"DONE\"}", "{\"priority\":\"MEGA\"}", "{\"assigneeId\":\"not-a-uuid\"}", "{\"title\":\"\"}",
        "{\"title\":1e999999}", "{\"title\":\"a\",\"title\":\"b\",\"x\":1}", "\ufeff{\"title\":\"bom\"}",
        "{\"cron\":\"* * * * * *\",\"timeZone\":\"UTC\",\"task\":{\"kind\":\"EXPORT\"}}",
        "{\"cron\":\"0 9 * * MON\",\"timeZone\":\"Mars/Olympus\",\"task\":{\"kind\":\"EXPORT\"}}",
        "{\"cron\":\"0 9 * * MON\",\"timeZone\":\"UTC\",\"task\":{\"kind\":\"EXPORT\",\"runAt\":\"2030-01-01T00:00:00Z\"}}",
        "{\"cron\":\"0 9 * * MON\",\"timeZone\":\"UTC\",\"task\":{\"kind\":\"EXPORT\",\"scope\":\"WORLD\"}}",
        "{\"cron\":\"0 9 * * MON\",\"timeZone\":\"UTC\",\"task\":{\"kind\":\"EXPORT\"},\"enabled\":1}",
        "{\"cron\":\"\\u0000\",\"timeZone\":\"UTC\"}", "{\"cron\":\"0 9 30 2 *\",\"timeZone\":\"UTC\"}",
        "{\"cron\":\"" + "9 ".repeat(300) + "\",\"timeZone\":\"" + "Z".repeat(300) + "\"}",
        "{\"cron\":\"0 9 * * MON\",\"timeZone\":\"UTC\",\"task\":[\"EXPORT\"]}", "{\"name\":\"\\u0007\"}"};
    private static final byte[][] BAD_BYTES = {
        {'{', '"', 't', 'i', 't', 'l', 'e', '"', ':', '"', (byte) 0xC0, (byte) 0xAF, '"', '}'},
        {'{', '"', 't', 'i', 't', 'l', 'e', '"', ':', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'},
        {'{', '"', 't', 'i', 't', 'l', 'e', '"', ':', '"', (byte) 0xE4, (byte) 0xB8, '"', '}'},
        {'{', '"', 't', 'i', 't', 'l', 'e', '"', ':', '"', (byte) 0xFF, '"', '}'},
        {'{', '"', 't', 'i', 't', 'l', 'e', '"', ':', '"', (byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80, '"', '}'}};
    private static final String[] CONTENT_TYPES = {
        "application/json", "application/json; charset=utf-8", "application/json; charset=foo",
        "application/json; charset=ISO-8859-1", "application/json;;;", ";;;", "text/plain", "application/xml",
        "multipart/form-data", "*/*", "application", "application/json; charset=utf-16",
        "application/merge-patch+json"};
    private static final String[] ACCEPTS = {
        "*/*", "application/json", "text/html", "///", "application/json;q=abc", "text/csv", "application/problem+json",
        "*", "image/*, */*;q=0.1", "a/b/c", ",,,"};
    private static final String[] IF_MATCH = {"*", "\"1\"", "W/\"1\"", "1", "abc", "\"-1\"", "\"99999999999\"",
        "\"1\", \"2\"", "W/\"1\", W/\"2\"", "\"", ""};
    private static final String[] QUERIES = {
        "?createdFrom=%2B999999-01-01T00:00:00Z", "?createdTo=-999999-01-01T00:00:00Z", "?createdFrom=0000-01-01",
        "?createdFrom=2026-13-45", "?limit=0", "?limit=501", "?limit=abc", "?limit=99999999999999", "?limit=-1",
        "?status=NOPE", "?status=OPEN,,", "?kind=NOPE", "?assigneeId=x", "?ticketId=x", "?q=%00", "?q=%ED%A0%80",
        "?q=%zz", "?q=" + "q".repeat(300), "?cursor=!!!", "?cursor=" + cursor("+999999-01-01T00:00:00Z|" + UUID.randomUUID()),
        "?cursor=" + cursor("-999999-01-01T00:00:00Z|" + UUID.randomUUID()), "?cursor=" + cursor("9223372036854775807"),
        "?cursor=" + cursor("-1"), "?cursor=" + cursor("garbage|x"), "?cursor=" + cursor("2026-01-01T00:00:00Z"),
        "?createdFrom=2026-02-01&createdTo=2026-01-01", "?limit=1&limit=2", "?%zz=1", "?a=%",
        "?outcome=NOPE", "?outcome=,", "?from=PT1H&to=PT2H", "?from=P99999999999D", "?to=%2B999999-01-01T00:00:00Z",
        "?worker=" + "w".repeat(300), "?worker=%00"};
    private static final String[] BAD_IDS = {"x", "%2e%2e", "%2E", "%7Bid%7D", "00000000-0000-0000-0000-000000000000",
        "%E2%82%AC", "12345678-1234-1234-1234-1234567890123"};

    private static String cursor(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    private static Req mutate(Random rnd, String method, String path, String owner, String customer,
            List<Supplier<String>> badTokens, TestTeam t) {
        List<String> headers = new ArrayList<>();
        String token = rnd.nextInt(4) == 0 ? customer : owner;
        byte[] body = null;
        boolean raw = false;
        String target = "/api/v1/" + path;
        boolean hasBody = method.equals("POST") || method.equals("PATCH") || method.equals("PUT");
        if (hasBody) {
            body = validBody(path, rnd).getBytes(StandardCharsets.UTF_8);
            headers.add("Content-Type: application/json");
        }
        if (method.equals("PATCH")) {
            // a schedule's version moves with every pause, resume and change: "*" lets its bodies reach validation
            headers.add(path.startsWith("schedules/") ? "If-Match: *" : "If-Match: \"1\"");
        }
        switch (rnd.nextInt(9)) {
            case 0, 1 -> {
                if (hasBody) {
                    int k = rnd.nextInt(20);
                    body = k == 0 ? deep(rnd.nextBoolean() ? 40 : 1500)
                            : k == 1 ? BAD_BYTES[rnd.nextInt(BAD_BYTES.length)]
                            : k == 2 && rnd.nextInt(6) == 0 ? huge(rnd)
                            : BAD_BODIES[rnd.nextInt(BAD_BODIES.length)].getBytes(StandardCharsets.UTF_8);
                } else {
                    target += QUERIES[rnd.nextInt(QUERIES.length)];
                }
            }
            case 2 -> {
                headers.removeIf(h -> h.startsWith("Content-Type"));
                headers.add("Content-Type: " + CONTENT_TYPES[rnd.nextInt(CONTENT_TYPES.length)]);
            }
            case 3 -> headers.add("Accept: " + ACCEPTS[rnd.nextInt(ACCEPTS.length)]);
            case 4 -> {
                headers.removeIf(h -> h.startsWith("If-Match"));
                headers.add("If-Match: " + IF_MATCH[rnd.nextInt(IF_MATCH.length)]);
                if (method.equals("PATCH")) {
                    body = BAD_BODIES[rnd.nextInt(BAD_BODIES.length)].getBytes(StandardCharsets.UTF_8);
                }
            }
            case 5 -> target += QUERIES[rnd.nextInt(QUERIES.length)];
            case 6 -> {
                String[] segments = target.split("/");
                int idx = 4 + rnd.nextInt(Math.max(1, segments.length - 4));
                if (idx < segments.length) {
                    segments[idx] = BAD_IDS[rnd.nextInt(BAD_IDS.length)];
                    target = String.join("/", segments);
                } else {
                    target += "/" + BAD_IDS[rnd.nextInt(BAD_IDS.length)];
                }
                raw = target.contains("%2") || target.contains("%5") || target.contains("%7") || rnd.nextBoolean();
                if (rnd.nextInt(8) == 0) {
                    target = target.replace("%7Bid%7D", "{id}");
                    raw = true;
                }
            }
            case 7 -> token = badTokens.get(rnd.nextInt(badTokens.size())).get();
            default -> {
                raw = true;
                int k = rnd.nextInt(6);
                if (k == 0) {
                    headers.add("Host: evil.example");
                    String created = "teams/" + t.id() + new String[] {"/tickets", "/tasks", "/schedules"}[rnd.nextInt(3)];
                    target = "/api/v1/" + created;
                    method = "POST";
                    body = (target.endsWith("tickets") ? "{\"title\":\"host\"}" : validBody(created, rnd))
                            .getBytes(StandardCharsets.UTF_8);
                    headers.removeIf(h -> h.startsWith("Content-Type") || h.startsWith("If-Match"));
                    headers.add("Content-Type: application/json");
                } else if (k == 1) {
                    headers.add("X-Long: " + "h".repeat(20_000));
                } else if (k == 2) {
                    headers.add("X-Ctl: a\u0001b");
                } else if (k == 3) {
                    headers.add("X-Non-Ascii: \u00e9\u00e8");
                } else if (k == 4) {
                    target += "/" + "u".repeat(9000);
                } else {
                    method = new String[] {"TRACE", "OPTIONS", "HEAD", "FOO", "DELETE"}[rnd.nextInt(5)];
                    body = null;
                    headers.removeIf(h -> h.startsWith("Content-Type"));
                }
            }
        }
        if (token != null) {
            headers.add("Authorization: " + (rnd.nextInt(10) == 0 ? "bearer " : "Bearer ") + token);
        }
        return new Req(method, target, body, headers, raw);
    }

    private static String validBody(String path, Random rnd) {
        if (path.endsWith("/calendar")) {
            return "{\"zone\":\"Asia/Shanghai\",\"shifts\":[{\"day\":\"MONDAY\",\"start\":\"09:00\",\"end\":\""
                    + (rnd.nextBoolean() ? "18:00" : "02:00") + "\"}]}";
        }
        if (path.endsWith("/calendar/holidays")) {
            return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\nBEGIN:VEVENT\r\nUID:h@x\r\nDTSTAMP:20270101T000000Z"
                    + "\r\nDTSTART;VALUE=DATE:20270501\r\nSUMMARY:Day off\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        }
        if (path.endsWith("/sla-policies")) {
            return "{\"policies\":[{\"priority\":\"" + (rnd.nextBoolean() ? "NORMAL" : "URGENT")
                    + "\",\"firstResponseMinutes\":60,\"resolutionMinutes\":600}]}";
        }
        if (path.endsWith("/replies")) {
            return "{\"body\":\"generated\"}";
        }
        if (path.endsWith("/tasks")) {
            return rnd.nextBoolean() ? "{\"kind\":\"EXPORT\",\"scope\":\"SELF\"}" : "{\"kind\":\"EXPORT\",\"scope\":\"TEAM\"}";
        }
        if (path.contains("/tickets/")) {
            return "{\"status\":\"PENDING\"}";
        }
        if (path.endsWith("/schedules")) {
            return "{\"cron\":\"0 9 * * MON\",\"timeZone\":\"Asia/Shanghai\",\"task\":{\"kind\":\"EXPORT\",\"scope\":\""
                    + (rnd.nextBoolean() ? "SELF" : "TEAM") + "\"}}";
        }
        if (path.startsWith("schedules/")) {
            return "{\"name\":\"generated\"}";
        }
        return "{\"title\":\"generated\"}";
    }

    private static byte[] deep(int depth) {
        return ("{\"title\":" + "[".repeat(depth) + "]".repeat(depth) + "}").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] huge(Random rnd) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes("{\"title\":\"".getBytes(StandardCharsets.UTF_8));
        b.writeBytes("z".repeat(1_100_000 + rnd.nextInt(1000)).getBytes(StandardCharsets.UTF_8));
        b.writeBytes("\"}".getBytes(StandardCharsets.UTF_8));
        return b.toByteArray();
    }

    private static Ans send(URI root, Req req) throws IOException, InterruptedException {
        if (req.raw() || !httpClientCan(req)) {
            RawHttp.Answer a = RawHttp.send(root, req.method(), req.target(), req.body(), req.headers().toArray(String[]::new));
            return new Ans(a.status(), a.header("Content-Type"), a.header("Allow"), a.header("Location"), a.text());
        }
        HttpRequest.Builder b = HttpRequest.newBuilder(root.resolve(req.target())).timeout(Duration.ofSeconds(30))
                .method(req.method(), req.body() == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(req.body()));
        for (String h : req.headers()) {
            int colon = h.indexOf(':');
            b.header(h.substring(0, colon), h.substring(colon + 1).strip());
        }
        HttpResponse<byte[]> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        return new Ans(r.statusCode(), r.headers().firstValue("Content-Type").orElse(null),
                r.headers().firstValue("Allow").orElse(null), r.headers().firstValue("Location").orElse(null),
                new String(r.body(), StandardCharsets.UTF_8));
    }

    /** HttpClient refuses some header values and URIs; those go over a raw socket. */
    private static boolean httpClientCan(Req req) {
        if (req.method().equals("TRACE") || req.method().equals("FOO")) {
            return false;
        }
        for (String h : req.headers()) {
            String v = h.substring(h.indexOf(':') + 1).strip();
            if (v.isEmpty() || h.startsWith("Host") || v.chars().anyMatch(c -> c < 0x20 || c > 0x7e)) {
                return false;
            }
        }
        try {
            URI.create("http://x" + req.target());
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
