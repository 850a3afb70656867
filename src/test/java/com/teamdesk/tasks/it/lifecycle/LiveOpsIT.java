package com.teamdesk.tasks.it.lifecycle;

import org.postgresql.PGNotification;
import org.postgresql.PGConnection;
import java.util.concurrent.CompletableFuture;
import java.sql.Statement;
import java.sql.PreparedStatement;
import java.sql.Connection;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.export.ClientQueue;
import com.teamdesk.tasks.it.support.Poll;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.Tokens;
import com.teamdesk.tasks.queue.AddResult;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.StringReader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 14 on two real server processes (A and B) sharing one private schema and one Redis prefix, the
 * production WAR with its deployed {@code TaskWorker}, EJB timers and the one listening connection per
 * instance: live progress (SSE), the operator API and the task metrics.
 *
 * <p>Ordering is by sync points, never sleeps: a stream's first event proves it is registered before the
 * test lets the task move (the row is inserted WAITING and already marked dispatched, so nothing runs it
 * until the test adds its queue job). Waits are bounded polls that detect a sync point.
 */
class LiveOpsIT {
    /** Stops the servers and the queue client, then drops the schema, after the class. */
    @RegisterExtension
    static final ClassResources RESOURCES = new ClassResources();

    private static final Duration READY = Duration.ofSeconds(180);
    private static final Duration SYNC = Duration.ofSeconds(60);
    private static final int TICKETS = 20;
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static PrivateSchema data;
    private static String prefix;
    private static ServerProcess a;
    private static ServerProcess b;
    private static ClientQueue queue;
    private static UUID ops;

    @BeforeAll
    static void start() throws Exception {
        data = RESOURCES.schema();
        prefix = RESOURCES.prefix("it-live");
        // The stream test follows the progress of each batch (issue 16 writes it about once a second otherwise).
        List<ServerProcess> servers = RESOURCES.startReady(READY, ServerProcess.env(data, prefix, Map.of(
                "TEAMDESK_TIMERS_ENABLED", "true", "TEAMDESK_EXPORT_BATCH_SIZE", "7",
                "TEAMDESK_EXPORT_PROGRESS_EVERY_BATCH", "true", "TEAMDESK_EVENTS_MAX_STREAMS_PER_USER", "2")),
                "live-a", "live-b");
        a = servers.get(0);
        b = servers.get(1);
        queue = RESOURCES.add(new ClientQueue(prefix));
        ops = data.newOperator();
    }

    // ---- live progress ------------------------------------------------------------------------

    /**
     * A subscriber of one export sees every committed state in order, with no gap: WAITING, RUNNING 0, the
     * progress after each of the three batches (7 + 7 + 6 tickets), COMPLETED 100; then the stream ends.
     * Reconnecting with the first event's id gives the current state (and ends, it is final); with the last
     * id nothing is missed, so nothing is sent.
     */
    @Test
    void oneExportStreamsEveryStateInOrderAndResumesWithLastEventId() throws Exception {
        TestTeam t = data.newTeam();
        tickets(t);
        UUID task = dispatchedRow(t, t.staff(), "TEAM");
        try (Sse s = Sse.open(a.root().resolve("api/v1/tasks/" + task + "/events"), Tokens.of(t.staff()), null)) {
            assertEquals(200, s.status(), s.body());
            Event first = s.next();
            assertEquals("WAITING 0", state(first));
            assertEquals(AddResult.ADDED, queue.addTaskJob(task, 0));
            List<String> states = new ArrayList<>(List.of(state(first)));
            List<Long> ids = new ArrayList<>(List.of(first.id()));
            Event e;
            while ((e = s.nextOrEnd()) != null) {
                assertEquals("task", e.name());
                assertEquals(task.toString(), e.json().getString("id"));
                states.add(state(e));
                ids.add(e.id());
            }
            assertEquals(List.of("WAITING 0", "RUNNING 0", "RUNNING 35", "RUNNING 70", "RUNNING 99", "COMPLETED 100"),
                    states, "every committed state, in order, then the stream ends");
            for (int i = 1; i < ids.size(); i++) {
                assertTrue(ids.get(i) > ids.get(i - 1), "ids grow: " + ids);
            }
            try (Sse again = Sse.open(a.root().resolve("api/v1/tasks/" + task + "/events"), Tokens.of(t.staff()),
                    Long.toString(ids.get(0)))) {
                assertEquals("COMPLETED 100", state(again.next()), "what was missed: the current state");
                assertNull(again.nextOrEnd(), "a final state ends the stream");
            }
            try (Sse again = Sse.open(b.root().resolve("api/v1/tasks/" + task + "/events"), Tokens.of(t.staff()),
                    Long.toString(ids.get(ids.size() - 1)))) {
                assertNull(again.nextOrEnd(), "nothing missed, final: ends at once");
            }
        }
    }

    /**
     * Issue 16 (V7, {@code LiveInterest}): the ledger notifies only while some instance has streams open, and
     * a change whose transaction decided "nobody listens" is never lost by a stream that opens meanwhile.
     * (1) With no interest registered, a change is not notified: proven by order, since a later change made
     * while an interest row exists is notified and notifications arrive in commit order. (2) A transaction
     * that updated a task with no interest registered is still open when A's first stream on that task
     * opens: the stream's registration waits for it (ACCESS EXCLUSIVE on live_interest), and the stream's
     * first event is the state that transaction committed; the next change reaches the stream as an event.
     */
    @Test
    void nothingIsNotifiedWhileNobodyListensAndAChangeInFlightWhenTheFirstStreamOpensIsNotLost() throws Exception {
        TestTeam t = data.newTeam();
        UUID quiet = dispatchedRow(t, t.staff(), "TEAM");
        UUID heard = dispatchedRow(t, t.staff(), "TEAM");
        UUID task = dispatchedRow(t, t.staff(), "TEAM");
        String channel = "teamdesk_task:" + data.name();
        try (Connection listener = data.connection(); Statement st = listener.createStatement()) {
            st.execute("LISTEN \"" + channel + "\"");
            // Both servers may still hold rows from earlier streams; from here on, nobody listens.
            data.exec("DELETE FROM live_interest");
            data.exec("UPDATE background_task SET progress = 5 WHERE id = ?", quiet);
            data.exec("INSERT INTO live_interest (instance_id, until) VALUES ('the-test', now() + interval '1 minute')");
            data.exec("UPDATE background_task SET progress = 6 WHERE id = ?", heard);
            data.exec("DELETE FROM live_interest WHERE instance_id = 'the-test'");
            List<String> notified = new ArrayList<>();
            PGConnection pg = listener.unwrap(PGConnection.class);
            Instant deadline = Instant.now().plus(SYNC);
            while (notified.stream().noneMatch(n -> n.contains(heard.toString())) && Instant.now().isBefore(deadline)) {
                PGNotification[] got = pg.getNotifications(500);
                for (PGNotification n : got == null ? new PGNotification[0] : got) {
                    notified.add(n.getParameter());
                }
            }
            assertTrue(notified.stream().anyMatch(n -> n.contains(heard.toString())), "the change made while an "
                    + "instance listened was notified: " + notified);
            assertTrue(notified.stream().noneMatch(n -> n.contains(quiet.toString())), "the change made while "
                    + "nobody listened was not: " + notified);
        }

        try (Connection tx = data.connection()) {
            tx.setAutoCommit(false);
            try (PreparedStatement ps = tx.prepareStatement("UPDATE background_task SET progress = 42 WHERE id = ?")) {
                ps.setObject(1, task);
                assertEquals(1, ps.executeUpdate()); // the trigger read live_interest: nobody listens
            }
            CompletableFuture<Sse> opening = CompletableFuture.supplyAsync(() ->
                    Sse.open(a.root().resolve("api/v1/tasks/" + task + "/events"), Tokens.of(t.staff()), null));
            awaitTrue(() -> data.count("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                    + " WHERE c.relname = 'live_interest' AND l.mode = 'AccessExclusiveLock' AND NOT l.granted") == 1,
                    "A's registration to wait for the open transaction");
            tx.commit();
            try (Sse s = opening.get(SYNC.toSeconds(), TimeUnit.SECONDS)) {
                assertEquals(200, s.status(), s.body());
                assertEquals("WAITING 42", state(s.next()), "the committed change is the stream's first state");
                data.exec("UPDATE background_task SET progress = 43 WHERE id = ?", task);
                assertEquals("WAITING 43", state(s.next()), "a change after the registration is an event");
            }
        }
    }

    /**
     * Team streams on A, changes made through B's API: the staff stream carries both members' tasks, each
     * change arrives within one second of B's answer; the customer's stream carries only the customer's own
     * task (the other member's task was created first, so it would have come first).
     */
    @Test
    void teamStreamsFollowChangesOfTheOtherInstanceAndACustomerSeesOnlyOwnTasks() throws Exception {
        TestTeam t = data.newTeam();
        tickets(t);
        URI events = a.root().resolve("api/v1/teams/" + t.id() + "/tasks/events");
        try (Sse staff = Sse.open(events, Tokens.of(t.staff()), null);
                Sse customer = Sse.open(events, Tokens.of(t.customer()), null)) {
            assertEquals(200, staff.status());
            assertEquals(200, customer.status());
            // Sync point: both streams registered (a change of a task of this team reaches both).
            UUID probe = dispatchedRow(t, t.customer(), "SELF");
            data.exec("UPDATE background_task SET progress = 1 WHERE id = ?", probe);
            assertEquals(probe.toString(), staff.next().json().getString("id"));
            assertEquals(probe.toString(), customer.next().json().getString("id"));

            JsonObject other = post(b, "api/v1/teams/" + t.id() + "/tasks", Tokens.of(t.staff()),
                    "{\"kind\":\"EXPORT\",\"scope\":\"TEAM\"}");
            Instant answered = Instant.now();
            Event seen = staff.nextFor(other.getString("id"));
            Duration lag = Duration.between(answered, seen.at());
            assertTrue(lag.compareTo(Duration.ofSeconds(1)) < 0, "B's change reached A's subscriber in " + lag);
            assertEquals("WAITING", seen.json().getString("status"));

            JsonObject own = post(b, "api/v1/teams/" + t.id() + "/tasks", Tokens.of(t.customer()),
                    "{\"kind\":\"EXPORT\",\"scope\":\"SELF\"}");
            Event e;
            Set<String> customerSaw = new HashSet<>();
            do {
                e = customer.next();
                customerSaw.add(e.json().getString("id"));
            } while (!(e.json().getString("id").equals(own.getString("id"))
                    && "COMPLETED".equals(e.json().getString("status"))));
            assertEquals(Set.of(probe.toString(), own.getString("id")), customerSaw,
                    "a customer's stream never carries another member's task");
            staff.nextFor(own.getString("id"));
        }
    }

    /** 404 as GET for outsiders; per-user cap 2 → 429 problem+json; a stream whose client left is released. */
    @Test
    void streamsAreAuthorizedAndBounded() throws Exception {
        TestTeam t = data.newTeam();
        UUID task = dispatchedRow(t, t.staff(), "TEAM");
        assertEquals(404, Sse.open(a.root().resolve("api/v1/tasks/" + task + "/events"), Tokens.of(t.outsider()), null)
                .closeAndStatus());
        assertEquals(404, Sse.open(a.root().resolve("api/v1/tasks/" + task + "/events"), Tokens.of(t.customer()), null)
                .closeAndStatus(), "a customer does not see a staff member's task");
        assertEquals(404, Sse.open(a.root().resolve("api/v1/teams/" + t.id() + "/tasks/events"), Tokens.of(t.outsider()),
                null).closeAndStatus());
        URI events = a.root().resolve("api/v1/tasks/" + task + "/events");
        Socket one = rawStream(events, Tokens.of(t.staff()));
        try (Sse two = Sse.open(events, Tokens.of(t.staff()), null)) {
            assertEquals(200, two.status());
            two.next();
            try (Sse three = Sse.open(events, Tokens.of(t.staff()), null)) {
                assertEquals(429, three.status());
                assertTrue(three.body().contains("events.too_many_streams"), three.body());
                assertTrue(three.contentType().startsWith("application/problem+json"), three.contentType());
            }
            one.close(); // the client goes away; the watch's probe finds it gone
            awaitTrue(() -> {
                try (Sse retry = Sse.open(events, Tokens.of(t.staff()), null)) {
                    return retry.status() == 200;
                }
            }, "the stream of the client that left is released");
        }
    }

    /** Opens a stream over a plain socket (so that closing it surely closes the connection); returns after the first event. */
    private static Socket rawStream(URI uri, String token) throws IOException {
        Socket s = new Socket(uri.getHost(), uri.getPort());
        s.setSoTimeout((int) SYNC.toMillis());
        s.getOutputStream().write(("GET " + uri.getRawPath() + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                + "\r\nAccept: text/event-stream\r\nAuthorization: Bearer " + token + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        BufferedReader r = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
        String status = r.readLine();
        assertTrue(status != null && status.contains(" 200 "), "stream answered " + status);
        String line;
        while ((line = r.readLine()) != null && !line.startsWith("data:")) {
            // headers and the event's first lines
        }
        assertNotNull(line, "the first event");
        return s;
    }

    // ---- operator API -------------------------------------------------------------------------

    /** Every admin endpoint answers 403 to a team owner (no operator group). */
    @Test
    void nonOperatorsGet403OnEveryAdminEndpoint() throws Exception {
        TestTeam t = data.newTeam();
        String owner = Tokens.of(t.owner());
        UUID task = dispatchedRow(t, t.staff(), "TEAM");
        for (String path : List.of("overview", "workers", "queue", "timers", "tasks", "tasks/" + task)) {
            assertEquals(403, send(a, "GET", "api/v1/admin/" + path, owner, null).statusCode(), path);
        }
        for (String path : List.of("timers/dispatch/pause", "timers/dispatch/resume", "timers/dispatch/run")) {
            assertEquals(403, send(a, "POST", "api/v1/admin/" + path, owner, null).statusCode(), path);
        }
        assertEquals(403, send(a, "POST", "api/v1/admin/tasks/retry", owner, "{}").statusCode());
        assertEquals(0L, data.count("SELECT count(*) FROM timer_pause"));
    }

    /**
     * The overview's figures equal counts taken with SQL (read when the ledger is still); workers list both
     * instances live; a task's detail names the worker that claimed it; bulk retry retries FAILED tasks.
     */
    @Test
    void overviewMatchesSqlAndTasksAcrossTeamsCanBeRetried() throws Exception {
        TestTeam t = data.newTeam();
        tickets(t);
        UUID failing = dispatchedRow(t, t.customer(), "TEAM"); // a customer may not export the team: rejected
        queue.addTaskJob(failing, 0);
        awaitTrue(() -> "FAILED".equals(data.value("SELECT status FROM background_task WHERE id = ?", failing)), "FAILED");
        UUID due = UUID.randomUUID(); // WAITING, not dispatched, not due for an hour: no sweep touches it
        OffsetDateTime later = OffsetDateTime.now(ZoneOffset.UTC).plusHours(1);
        data.exec("INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,"
                + " progress, run_at, created_at, updated_at) VALUES (?, 'EXPORT', ?, ?, 'TEAM', '{\"timeZone\":\"UTC\"}',"
                + " 'WAITING', 0, 0, 0, ?, ?, ?)", due, t.id(), t.staff(), later, later.minusHours(1), later.minusHours(1));
        String token = opsToken();
        JsonObject overview = null;
        for (int i = 0; i < 20 && overview == null; i++) {
            String before = sqlFigures();
            JsonObject o = json(send(a, "GET", "api/v1/admin/overview", token, null));
            if (before.equals(sqlFigures())) {
                overview = o;
                assertEquals(before, apiFigures(o));
            }
        }
        assertNotNull(overview, "the ledger never stood still for one overview");
        assertEquals(data.count("SELECT count(*) FROM background_task WHERE status = 'RUNNING'"),
                overview.getJsonArray("running").size());

        JsonArray workers = json(send(b, "GET", "api/v1/admin/workers", token, null)).getJsonArray("items");
        long live = workers.stream().filter(w -> "live".equals(w.asJsonObject().getString("state"))).count();
        assertEquals(2, live, "both instances' workers: " + workers);

        JsonObject detail = json(send(a, "GET", "api/v1/admin/tasks/" + failing, token, null));
        assertEquals("FAILED", detail.getString("status"));
        String claimedBy = detail.getString("claimedBy");
        assertTrue(workers.stream().anyMatch(w -> w.asJsonObject().getString("id").equals(claimedBy)),
                "claimed by one of the workers: " + claimedBy);
        JsonObject list = json(send(a, "GET", "api/v1/admin/tasks?status=FAILED&team=" + t.id(), token, null));
        assertEquals(1, list.getJsonArray("items").size());
        assertTrue(list.isNull("nextCursor"));
        assertEquals(403, send(a, "GET", "api/v1/admin/overview", Tokens.of(t.owner()), null).statusCode());

        // R44: the rejected execution in the operator's executions across teams, by outcome, team, kind and worker
        String filters = "team=" + t.id() + "&kind=EXPORT&from=PT1H";
        JsonArray rejected = json(send(a, "GET", "api/v1/admin/executions?outcome=REJECTED,STALLED&" + filters, token,
                null)).getJsonArray("items");
        assertEquals(1, rejected.size(), rejected.toString());
        JsonObject execution = rejected.getJsonObject(0);
        assertEquals(failing.toString(), execution.getString("taskId"));
        assertEquals(t.id().toString(), execution.getString("teamId"));
        assertEquals(claimedBy, execution.getString("worker"));
        assertTrue(execution.getJsonNumber("durationMs").longValue() >= 0);
        String worker = java.net.URLEncoder.encode(claimedBy, java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(1, json(send(b, "GET", "api/v1/admin/executions?worker=" + worker + "&" + filters, token, null))
                .getJsonArray("items").size(), "by worker, from the other instance");
        assertEquals(0, json(send(a, "GET", "api/v1/admin/executions?outcome=COMPLETED,RUNNING&" + filters, token,
                null)).getJsonArray("items").size());
        assertEquals(0, json(send(a, "GET", "api/v1/admin/executions?team=" + t.id() + "&to=2000-01-01T00:00:00Z", token,
                null)).getJsonArray("items").size(), "claimed after the range's end");
        JsonObject summary = json(send(a, "GET", "api/v1/admin/executions/summary?" + filters, token, null));
        assertEquals(Json.createArrayBuilder().add(Json.createObjectBuilder().add("outcome", "REJECTED").add("count", 1)
                .add("workers", 1)).build(), summary.getJsonArray("counts"));
        for (String bad : List.of("outcome=NOPE", "outcome=COMPLETED,,", "from=yesterday", "from=PT1H&to=PT2H",
                "team=x", "kind=NOPE", "worker=" + "w".repeat(201), "limit=0", "cursor=!!!")) {
            HttpResponse<InputStream> r = send(a, "GET", "api/v1/admin/executions?" + bad, token, null);
            assertEquals(400, r.statusCode(), bad);
            assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"), bad);
        }
        assertEquals(403, send(a, "GET", "api/v1/admin/executions", Tokens.of(t.owner()), null).statusCode());
        assertEquals(403, send(a, "GET", "api/v1/admin/executions/summary", Tokens.of(t.owner()), null).statusCode());

        data.exec("UPDATE membership SET role = 'STAFF' WHERE team_id = ? AND user_id = ?", t.id(), t.customer());
        JsonObject retried = json(send(b, "POST", "api/v1/admin/tasks/retry", token,
                "{\"team\":\"" + t.id() + "\",\"limit\":10}"));
        assertEquals(List.of(failing.toString()), retried.getJsonArray("retried").getValuesAs(
                v -> ((jakarta.json.JsonString) v).getString()));
        awaitTrue(() -> "COMPLETED".equals(data.value("SELECT status FROM background_task WHERE id = ?", failing)),
                "the retried run completes");
        assertEquals(1L, data.count("SELECT run FROM background_task WHERE id = ?", failing));
        assertEquals(1L, data.count("SELECT count(*) FROM system_event WHERE kind = 'admin.task.retried' AND actor_id = ?"
                + " AND task_id = ?", ops, failing));
    }

    /**
     * Issue 30: an operator caps a team at 1 running task; 6 of its exports, created through the API while both
     * instances' workers (4 slots each) run, never overlap in the ledger (each RUNNING interval is recorded by a
     * trigger at the statements that begin and end it, which happen while the execution holds its queue job),
     * all complete, none used more than one attempt. The cap is audited, listed, refused out of range and to a
     * non-operator, and cleared.
     */
    @Test
    void aTeamsCapOfRunningTasksHoldsAcrossBothInstances() throws Exception {
        TestTeam t = data.newTeam();
        tickets(t);
        String token = opsToken();
        data.exec("CREATE TABLE IF NOT EXISTS cap_probe (task_id uuid, status text, at timestamptz)");
        data.exec("CREATE OR REPLACE FUNCTION cap_probe_log() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                + " IF NEW.team_id = '" + t.id() + "' AND NEW.status IS DISTINCT FROM OLD.status THEN"
                + " INSERT INTO cap_probe VALUES (NEW.id, NEW.status, clock_timestamp()); END IF; RETURN NEW; END $$");
        data.exec("CREATE TRIGGER cap_probe AFTER UPDATE ON background_task FOR EACH ROW EXECUTE FUNCTION cap_probe_log()");
        try {
            String path = "api/v1/admin/teams/" + t.id() + "/limits";
            assertEquals(403, send(a, "PUT", path, Tokens.of(t.owner()), "{\"maxRunning\":1}").statusCode());
            HttpResponse<InputStream> zero = send(a, "PUT", path, token, "{\"maxRunning\":0}");
            assertEquals(400, zero.statusCode());
            assertEquals("limits.invalid", parse(body(zero)).getString("code"));
            assertEquals(404, send(a, "PUT", "api/v1/admin/teams/" + UUID.randomUUID() + "/limits", token,
                    "{\"maxRunning\":1}").statusCode());
            assertEquals(0L, data.count("SELECT count(*) FROM team_queue_limit WHERE team_id = ?", t.id()),
                    "refused: nothing stored");
            JsonObject set = json(send(b, "PUT", path, token, "{\"maxRunning\":1}"));
            assertEquals(1, set.getInt("maxRunning"));

            List<UUID> created = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                JsonObject task = json(send(i % 2 == 0 ? a : b, "POST", "api/v1/teams/" + t.id() + "/tasks",
                        Tokens.of(t.staff()), "{\"kind\":\"EXPORT\",\"scope\":\"TEAM\"}"));
                created.add(UUID.fromString(task.getString("id")));
            }
            awaitTrue(() -> data.count("SELECT count(*) FROM background_task WHERE team_id = ? AND status = 'COMPLETED'",
                    t.id()) == 6, "the team's 6 exports complete, one at a time");
            assertEquals(0L, data.count("SELECT count(*) FROM background_task WHERE team_id = ? AND attempts <> 1",
                    t.id()), "waiting at the cap is no attempt");
            long overlapping = data.count("WITH s AS (SELECT task_id, at, status, lead(at) OVER (PARTITION BY task_id"
                    + " ORDER BY at) AS until FROM cap_probe), r AS (SELECT task_id, at, until FROM s WHERE status ="
                    + " 'RUNNING') SELECT count(*) FROM r x JOIN r y ON x.task_id < y.task_id AND x.at < y.until"
                    + " AND y.at < x.until");
            assertEquals(0L, overlapping, "two of the team's tasks ran at once: " + data.count(
                    "SELECT count(*) FROM cap_probe WHERE status = 'RUNNING'") + " runs recorded");
            assertEquals(6L, data.count("SELECT count(DISTINCT task_id) FROM cap_probe WHERE status = 'RUNNING'"));

            JsonArray listed = json(send(a, "GET", "api/v1/admin/limits", token, null)).getJsonArray("items");
            assertTrue(listed.stream().anyMatch(l -> l.asJsonObject().getString("teamId").equals(t.id().toString())
                    && l.asJsonObject().getInt("maxRunning") == 1), "listed: " + listed);
            assertEquals(1L, data.count("SELECT count(*) FROM system_event WHERE kind = 'admin.team.limits'"
                    + " AND team_id = ? AND actor_id = ?", t.id(), ops));
            JsonObject cleared = json(send(a, "PUT", path, token, "{\"maxRunning\":null}"));
            assertTrue(cleared.isNull("maxRunning"));
            assertEquals(0L, data.count("SELECT count(*) FROM team_queue_limit WHERE team_id = ?", t.id()));
        } finally {
            data.exec("DROP TRIGGER IF EXISTS cap_probe ON background_task");
        }
    }

    /**
     * Pause keeps the dispatch sweep from running on BOTH instances (a due row stays undispatched over two
     * more ticks of each), run-now on B runs it once (the row is dispatched and completes), resume lets it
     * run again; each action is a system event with the operator as actor.
     */
    @Test
    void pauseStopsTheSweepOnBothInstancesAndRunNowRunsIt() throws Exception {
        String token = opsToken();
        TestTeam t = data.newTeam();
        tickets(t);
        try {
            awaitTrue(() -> {
                try {
                    return skipped(token).size() == 2;
                } catch (Exception e) {
                    return false;
                }
            }, "both instances reported their timers");
            JsonObject paused = json(send(a, "POST", "api/v1/admin/timers/dispatch/pause", token, null));
            assertTrue(paused.getBoolean("paused"));
            Map<String, Long> base = skipped(token);
            awaitTrue(() -> skippedAll(token, base, 1), "both instances skip a paused tick");
            UUID row = UUID.randomUUID();
            OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
            data.exec("INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,"
                    + " progress, run_at, created_at, updated_at) VALUES (?, 'EXPORT', ?, ?, 'TEAM', '{\"timeZone\":\"UTC\"}',"
                    + " 'WAITING', 0, 0, 0, ?, ?, ?)", row, t.id(), t.staff(), now, now, now);
            Map<String, Long> afterInsert = skipped(token);
            awaitTrue(() -> skippedAll(token, afterInsert, 2), "two more paused ticks on each instance");
            assertNull(data.value("SELECT dispatched_at FROM background_task WHERE id = ?", row),
                    "no instance dispatched while paused");

            JsonObject ran = json(send(b, "POST", "api/v1/admin/timers/dispatch/run", token, null));
            assertEquals("ok", ran.getString("lastOutcome"));
            assertTrue(ran.getInt("lastHandled") >= 1, ran.toString());
            assertNotNull(data.value("SELECT dispatched_at FROM background_task WHERE id = ?", row), "run-now dispatched");
            awaitTrue(() -> "COMPLETED".equals(data.value("SELECT status FROM background_task WHERE id = ?", row)),
                    "the dispatched row completes");
        } finally {
            assertEquals(200, send(a, "POST", "api/v1/admin/timers/dispatch/resume", token, null).statusCode());
        }
        assertEquals(0L, data.count("SELECT count(*) FROM timer_pause"));
        for (String kind : List.of("admin.timer.paused", "admin.timer.run", "admin.timer.resumed")) {
            assertTrue(data.count("SELECT count(*) FROM system_event WHERE kind = ? AND actor_id = ? AND team_id IS NULL",
                    kind, ops) >= 1, kind);
        }
        assertEquals(404, send(a, "POST", "api/v1/admin/timers/nope/run", token, null).statusCode());
    }

    // ---- metrics and health -------------------------------------------------------------------

    /** After N completed and M failed exports the counters (summed over both instances) moved by N and M. */
    @Test
    void completedAndFailedCountersMoveByNAndM() throws Exception {
        TestTeam t = data.newTeam();
        tickets(t);
        double completed0 = metric("teamdesk_tasks_completed_total", "EXPORT");
        double failed0 = metric("teamdesk_tasks_failed_total", "EXPORT");
        double executed0 = metric("teamdesk_task_executions_total", "EXPORT", "completed");
        double rejected0 = metric("teamdesk_task_executions_total", "EXPORT", "rejected");
        List<UUID> ok = List.of(dispatchedRow(t, t.staff(), "TEAM"), dispatchedRow(t, t.owner(), "TEAM"),
                dispatchedRow(t, t.customer(), "SELF"));
        List<UUID> bad = List.of(dispatchedRow(t, t.customer(), "TEAM"), dispatchedRow(t, t.customer(), "TEAM"));
        for (UUID id : ok) {
            queue.addTaskJob(id, 0);
        }
        for (UUID id : bad) {
            queue.addTaskJob(id, 0);
        }
        awaitTrue(() -> data.count("SELECT count(*) FROM background_task WHERE team_id = ? AND status IN"
                + " ('COMPLETED', 'FAILED')", t.id()) == 5, "all five finished");
        awaitTrue(() -> metric("teamdesk_tasks_completed_total", "EXPORT") - completed0 >= 3
                && metric("teamdesk_tasks_failed_total", "EXPORT") - failed0 >= 2, "the counters reached N and M");
        assertEquals(3.0, metric("teamdesk_tasks_completed_total", "EXPORT") - completed0);
        assertEquals(2.0, metric("teamdesk_tasks_failed_total", "EXPORT") - failed0);
        // issue 32: the same executions by outcome (a customer's TEAM export is rejected), and their durations
        awaitTrue(() -> metric("teamdesk_task_executions_total", "EXPORT", "completed") - executed0 >= 3
                && metric("teamdesk_task_executions_total", "EXPORT", "rejected") - rejected0 >= 2, "by outcome");
        assertEquals(3.0, metric("teamdesk_task_executions_total", "EXPORT", "completed") - executed0);
        assertEquals(2.0, metric("teamdesk_task_executions_total", "EXPORT", "rejected") - rejected0);
        String text = body(send(a, "GET", "metrics", null, null)) + body(send(b, "GET", "metrics", null, null));
        assertTrue(text.lines().anyMatch(l -> l.startsWith("teamdesk_task_execution_duration_bucket{")
                && l.contains("outcome=\"completed\"") && l.contains("le=\"0.1\"")), () -> "histogram buckets on /metrics: "
                + text.lines().filter(l -> l.contains("execution_duration_bucket")).limit(10).toList());
        assertTrue(text.contains("outcome=\"completed\""), "by outcome");
        for (String name : List.of("teamdesk_task_run_duration", "teamdesk_task_queue_wait", "teamdesk_queue_jobs",
                "teamdesk_sweep_duration", "teamdesk_sweep_rows_total", "teamdesk_event_streams_open")) {
            assertTrue(text.contains(name), name + " on /metrics");
        }
    }

    /** /health/live and /health/ready are separate; /health still answers both. */
    @Test
    void liveAndReadyAreSeparated() throws Exception {
        JsonObject live = json(send(a, "GET", "health/live", null, null));
        assertEquals("UP", live.getString("status"));
        assertTrue(live.toString().contains("teamdesk-live") && !live.toString().contains("teamdesk-tasks"), live.toString());
        JsonObject ready = json(send(a, "GET", "health/ready", null, null));
        assertEquals("UP", ready.getString("status"));
        assertTrue(ready.toString().contains("teamdesk-tasks") && !ready.toString().contains("teamdesk-live"));
        assertEquals("UP", ServerProcess.checkData(json(send(a, "GET", "health", null, null))).getString("database"));
    }

    // ---- helpers ------------------------------------------------------------------------------

    private static String opsToken() {
        return Tokens.with(ops, Json.createObjectBuilder().add("groups", Json.createArrayBuilder().add("member")
                .add("operator")));
    }

    private static String sqlFigures() {
        StringBuilder s = new StringBuilder();
        for (String st : List.of("WAITING", "RUNNING", "COMPLETED", "FAILED")) {
            for (String k : List.of("EXPORT", "REMINDER")) {
                s.append(st).append('/').append(k).append('=')
                        .append(data.count("SELECT count(*) FROM background_task WHERE status = ? AND kind = ?", st, k))
                        .append(' ');
            }
        }
        s.append("due=").append(data.count("SELECT count(*) FROM background_task WHERE status = 'WAITING' AND"
                + " dispatched_at IS NULL AND run_at <= now()"));
        return s.toString();
    }

    private static String apiFigures(JsonObject o) {
        Map<String, Long> c = new HashMap<>();
        for (JsonValue v : o.getJsonArray("counts")) {
            JsonObject x = v.asJsonObject();
            c.put(x.getString("status") + "/" + x.getString("kind"), x.getJsonNumber("count").longValue());
        }
        StringBuilder s = new StringBuilder();
        for (String st : List.of("WAITING", "RUNNING", "COMPLETED", "FAILED")) {
            for (String k : List.of("EXPORT", "REMINDER")) {
                s.append(st).append('/').append(k).append('=').append(c.get(st + "/" + k)).append(' ');
            }
        }
        return s.append("due=").append(o.getJsonNumber("dueUndispatched").longValue()).toString();
    }

    /** @return dispatch ticks skipped per instance */
    private static Map<String, Long> skipped(String token) throws Exception {
        Map<String, Long> out = new HashMap<>();
        for (JsonValue i : json(send(a, "GET", "api/v1/admin/timers", token, null)).getJsonArray("items")) {
            for (JsonValue timer : i.asJsonObject().getJsonArray("timers")) {
                if ("dispatch".equals(timer.asJsonObject().getString("name"))) {
                    out.put(i.asJsonObject().getString("instance"), timer.asJsonObject().getJsonNumber("skipped").longValue());
                }
            }
        }
        return out;
    }

    private static boolean skippedAll(String token, Map<String, Long> base, long more) {
        try {
            Map<String, Long> now = skipped(token);
            return base.keySet().stream().allMatch(k -> now.getOrDefault(k, 0L) >= base.get(k) + more);
        } catch (Exception e) {
            return false;
        }
    }

    private static final Pattern SAMPLE = Pattern.compile("^(\\w+)\\{([^}]*)\\}\\s+([0-9.eE+-]+)", Pattern.MULTILINE);

    /** @return the counter summed over both instances (0 when absent), of this kind (and outcome, when given) */
    private static double metric(String name, String kind, String... outcome) {
        double sum = 0;
        for (ServerProcess s : List.of(a, b)) {
            try {
                Matcher m = SAMPLE.matcher(body(send(s, "GET", "metrics", null, null)));
                while (m.find()) {
                    if (m.group(1).equals(name) && m.group(2).contains("kind=\"" + kind + "\"")
                            && (outcome.length == 0 || m.group(2).contains("outcome=\"" + outcome[0] + "\""))) {
                        sum += Double.parseDouble(m.group(3));
                    }
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        return sum;
    }

    private static String state(Event e) {
        return e.json().getString("status") + " " + e.json().getInt("progress");
    }

    private static JsonObject post(ServerProcess s, String path, String token, String body) throws Exception {
        HttpResponse<InputStream> r = send(s, "POST", path, token, body);
        assertEquals(202, r.statusCode());
        return json(r);
    }

    private static HttpResponse<InputStream> send(ServerProcess s, String method, String path, String token, String body)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(s.root().resolve(path)).timeout(Duration.ofSeconds(150))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
    }

    private static String body(HttpResponse<InputStream> r) throws IOException {
        try (InputStream in = r.body()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static JsonObject json(HttpResponse<InputStream> r) throws IOException {
        String text = body(r);
        assertTrue(r.statusCode() < 300, r.statusCode() + " " + text);
        return parse(text);
    }

    private static JsonObject parse(String text) {
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    private static void tickets(TestTeam t) {
        data.exec("INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at,"
                + " updated_at, version) SELECT gen_random_uuid(), ?, 'Ticket ' || g, 'Body ' || g, 'OPEN',"
                + " 'NORMAL', ?, ?, now() - make_interval(secs => g), now() - make_interval(secs => g), 1"
                + " FROM generate_series(1, " + TICKETS + ") g", t.id(), t.staff(), t.customer());
    }

    /** An export WAITING and already marked dispatched: nothing runs it until the test adds its job. */
    private static UUID dispatchedRow(TestTeam t, UUID owner, String scope) {
        UUID id = UUID.randomUUID();
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        data.exec("INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,"
                + " progress, dispatched_at, run_at, created_at, updated_at) VALUES (?, 'EXPORT', ?, ?, ?,"
                + " '{\"timeZone\":\"UTC\"}'::jsonb, 'WAITING', 0, 0, 0, ?, ?, ?, ?)", id, t.id(), owner, scope, now, now,
                now, now);
        return id;
    }

    /** Bounded poll of a condition (detects a sync point; orders nothing). */
    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        Poll.until(condition, SYNC, "timed out: " + what);
    }

    /** One received event: name, id, data, and when it arrived. */
    record Event(String name, long id, String data, Instant at) {
        JsonObject json() {
            return parse(data);
        }
    }

    /** A minimal SSE client on the JDK HttpClient: events are parsed on a reader thread into a queue. */
    static final class Sse implements AutoCloseable {
        private static final Event END = new Event("end", -1, "{}", Instant.EPOCH);
        private final HttpResponse<InputStream> response;
        private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
        private String body = "";

        private Sse(HttpResponse<InputStream> response) {
            this.response = response;
        }

        static Sse open(URI uri, String token, String lastEventId) {
            HttpRequest.Builder b = HttpRequest.newBuilder(uri).header("Accept", "text/event-stream")
                    .header("Authorization", "Bearer " + token);
            if (lastEventId != null) {
                b.header("Last-Event-ID", lastEventId);
            }
            try {
                Sse s = new Sse(HTTP.send(b.build(), HttpResponse.BodyHandlers.ofInputStream()));
                if (s.status() != 200) {
                    s.body = new String(s.response.body().readAllBytes(), StandardCharsets.UTF_8);
                    s.response.body().close();
                } else {
                    Thread reader = new Thread(s::read, "sse-" + uri.getPath());
                    reader.setDaemon(true);
                    reader.start();
                }
                return s;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        int status() {
            return response.statusCode();
        }

        String body() {
            return body;
        }

        String contentType() {
            return response.headers().firstValue("Content-Type").orElse("");
        }

        int closeAndStatus() {
            close();
            return status();
        }

        private void read() {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                String name = null;
                String id = null;
                StringBuilder data = new StringBuilder();
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.isEmpty()) {
                        if (data.length() > 0) {
                            events.add(new Event(name, id == null ? -1 : Long.parseLong(id), data.toString(), Instant.now()));
                        }
                        name = null;
                        id = null;
                        data.setLength(0);
                    } else if (line.startsWith("event:")) {
                        name = line.substring(6).trim();
                    } else if (line.startsWith("id:")) {
                        id = line.substring(3).trim();
                    } else if (line.startsWith("data:")) {
                        data.append(line.substring(5).startsWith(" ") ? line.substring(6) : line.substring(5));
                    }
                }
            } catch (IOException e) {
                // closed by the test
            } finally {
                events.add(END);
            }
        }

        /** @return the next event; fails when none comes within the sync bound or the stream ended */
        Event next() throws InterruptedException {
            Event e = nextOrEnd();
            assertNotNull(e, "the stream ended");
            return e;
        }

        /** @return the next event, or null when the stream ended */
        Event nextOrEnd() throws InterruptedException {
            Event e = events.poll(SYNC.toSeconds(), TimeUnit.SECONDS);
            assertNotNull(e, "no event within " + SYNC);
            return e == END ? null : e;
        }

        /** @return the next event of this task (others are skipped) */
        Event nextFor(String taskId) throws InterruptedException {
            Event e;
            do {
                e = next();
            } while (!e.json().getString("id").equals(taskId));
            return e;
        }

        @Override
        public void close() {
            try {
                response.body().close();
            } catch (IOException e) {
                // already closed
            }
        }
    }
}
