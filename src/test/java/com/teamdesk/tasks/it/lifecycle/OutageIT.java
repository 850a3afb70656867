package com.teamdesk.tasks.it.lifecycle;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.Tokens;
import com.teamdesk.tasks.platform.PoolLogFilter;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 28 on two real server processes (A and B, the production WAR with its own worker threads, timers and
 * transactions) whose PostgreSQL and Redis connections go through the suite's {@link FaultProxy}: 40 exports
 * and 10 reminders in flight, then the database restarted underneath them (every connection closed, new
 * ones refused), partitioned, its backends terminated five times, or Redis cut. After each fault heals, every
 * one of the 50 tasks is COMPLETED, none FAILED, its {@code attempts} 1 (the outage used none of them), each
 * reminder has exactly one notification, one event and its ticket's version +1, and every export's CSV is
 * byte-identical to a control export made before any fault; and on both servers no permit of R48's bound on export
 * statements is left taken or waited for. During the restart neither server's log shows the pool's
 * per-allocation lines while its breaker is open, and its closing line counts them (R35).
 *
 * <p>The fault's length is the scenario (a restart of 10 s); ordering is by the tasks' states, polled with a
 * bound, never by sleeps.
 */
class OutageIT {
    /** Stops the servers, then the fault proxies, then drops the schema, after the class. */
    @RegisterExtension
    static final ClassResources RESOURCES = new ClassResources();

    private static final Duration READY = Duration.ofSeconds(180);
    /** Bound for every task of a round to complete after the fault healed. */
    private static final Duration HEAL = Duration.ofSeconds(120);
    /**
     * Length of the restart scenarios (database and Redis cut): 10 s in the suite, to keep the fault run near
     * 3 minutes; {@code -Dteamdesk.test.outage-seconds=60} runs issue 28's one-minute variant (b).
     */
    private static final Duration OUTAGE = Duration.ofSeconds(Long.getLong("teamdesk.test.outage-seconds", 10));
    private static final int EXPORTS = 40;
    private static final int REMINDERS = 10;
    /** Tickets of the exporting team: enough that 40 exports are still running when the fault begins. */
    private static final int TICKETS = 3000;
    /** The servers' JDBC application name, to find their connections in {@code pg_stat_activity}. */
    private static final String APP_NAME = "teamdesk-outage-it";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static PrivateSchema data;
    private static FaultProxy pg;
    private static FaultProxy redis;
    private static ServerProcess a;
    private static ServerProcess b;
    private static TestTeam exporting;
    private static TestTeam reminding;
    private static List<UUID> reminderTickets;
    private static byte[] controlCsv;

    @BeforeAll
    static void start() throws Exception {
        data = RESOURCES.schema();
        String prefix = RESOURCES.prefix("it-outage");
        URI db = URI.create(data.url().substring("jdbc:".length()));
        URI redisUrl = URI.create(env("TEAMDESK_REDIS_URL", "redis://127.0.0.1:6379"));
        pg = RESOURCES.add(FaultProxy.start("postgres", db.getPort() < 0 ? 5432 : db.getPort()));
        redis = RESOURCES.add(FaultProxy.start("redis", redisUrl.getPort() < 0 ? 6379 : redisUrl.getPort()));
        Map<String, String> env = new HashMap<>();
        env.put("TEAMDESK_DB_URL", "jdbc:postgresql://127.0.0.1:" + pg.port() + db.getRawPath() + "?" + db.getRawQuery()
                + "&connectTimeout=5&loginTimeout=5&ApplicationName=" + APP_NAME);
        // issue 28 part 4: only the URL is given; the pool must connect as the documented default role
        env.put("TEAMDESK_DB_USER", null);
        env.put("TEAMDESK_DB_PASSWORD", null);
        env.put("TEAMDESK_REDIS_URL", "redis://127.0.0.1:" + redis.port());
        env.put("TEAMDESK_REDIS_PREFIX", prefix);
        env.put("TEAMDESK_TIMERS_ENABLED", "true");
        // every export goes through many lease-checked writes, so that a fault meets executions mid-run
        env.put("TEAMDESK_EXPORT_BATCH_SIZE", "25");
        env.put("TEAMDESK_EXPORT_PROGRESS_EVERY_BATCH", "true");
        a = RESOURCES.add(ServerProcess.start("outage-a", env));
        b = RESOURCES.add(ServerProcess.start("outage-b", env));
        exporting = data.newTeam();
        reminding = data.newTeam();
        data.exec("INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at,"
                + " updated_at, version) SELECT gen_random_uuid(), ?, 'Export ticket ' || i, 'Body of ticket ' || i, 'OPEN',"
                + " 'NORMAL', ?, ?, now(), now(), 1 FROM generate_series(1, ?) AS i", exporting.id(), exporting.staff(),
                exporting.customer(), TICKETS);
        reminderTickets = new ArrayList<>();
        for (int i = 0; i < REMINDERS; i++) {
            reminderTickets.add(ticket(reminding, "Reminder ticket " + i));
        }
        a.awaitReady(READY);
        b.awaitReady(READY);
        String control = create(a, exporting, exportBody());
        awaitTrue(() -> "COMPLETED".equals(status(UUID.fromString(control))), () -> "control export COMPLETED");
        controlCsv = download(a, UUID.fromString(control));
        assertTrue(controlCsv.length > TICKETS * 20, "the control CSV holds the tickets");
    }

    /**
     * Issue 28 part 4: started with only {@code TEAMDESK_DB_URL} (no user, no password in the environment),
     * the servers connect as the documented default role {@code teamdesk}, not as the operating-system user
     * (this suite runs as root, which trust authentication would let in).
     */
    @Test
    void serversGivenOnlyTheUrlConnectAsTheDefaultRole() {
        assertEquals("teamdesk", String.valueOf(data.value("SELECT string_agg(DISTINCT usename, ',') FROM pg_stat_activity"
                + " WHERE application_name = ?", APP_NAME)), "the roles of the servers' connections");
    }

    /**
     * (a) A database restart: every connection closed, new ones refused for 10 s ({@link #OUTAGE}; (b): 60 s). R35's
     * quiet log: in each server's log, no connection-pool line of {@link PoolLogFilter#MESSAGE_IDS} from a record
     * made while its breaker was open, and the closing line counts those it held back (the failed probes alone make
     * RAR5038, RAR5117 and RAR5114 each time).
     */
    @Test
    void aDatabaseRestartFailsNothing() throws Exception {
        long fromA = Files.size(a.logFile());
        long fromB = Files.size(b.logFile());
        survives("database restart of " + OUTAGE.toSeconds() + " s", () -> {
            pg.cut();
            Instant healAt = Instant.now().plus(OUTAGE);
            // while it lasts: A is not ready (out of a load balancer) but alive (no orchestrator restarts it)
            awaitTrue(() -> code(a, "health/ready") == 503, () -> "/health/ready DOWN during the outage");
            assertEquals(200, code(a, "health/live"), "/health/live stays UP during the outage");
            Duration left = Duration.between(Instant.now(), healAt);
            pause(left.isNegative() ? Duration.ZERO : left);
            pg.heal();
        });
        List<Outage> outages = new ArrayList<>(outages(a, fromA));
        outages.addAll(outages(b, fromB));
        assertFalse(outages.isEmpty(), "the outage's one WARNING and one INFO per instance");
        Map<String, Long> held = new TreeMap<>();
        for (Outage o : outages) {
            assertEquals(Map.of(), o.logged(), o + ": pool lines logged while the breaker was open");
            o.heldBack().forEach((id, n) -> held.merge(id, n, Long::sum));
        }
        for (String id : List.of("RAR5038", "RAR5117", "RAR5114")) {
            assertTrue(held.getOrDefault(id, 0L) > 0, id + " held back and counted in the closing lines: " + outages);
        }
        System.out.println("R35 quiet log: " + outages);
    }

    /**
     * One outage as a server's log shows it: from its {@code task.ledger UNREACHABLE} WARNING to its {@code reachable
     * again} INFO.
     *
     * @param logged   pool lines by message id whose records were made while it was open (after the WARNING's
     *                 millisecond, before the INFO's): the lines the breaker should have held back and did not
     * @param heldBack the closing line's count of held-back lines, by message id
     */
    record Outage(String server, long ms, Map<String, Long> logged, Map<String, Long> heldBack) {
    }

    private static final Pattern RECORD_START = Pattern.compile("(?m)^(?=\\[\\d{4}-\\d\\d-\\d\\dT)");
    private static final Pattern TIME_MILLIS = Pattern.compile("\\[timeMillis: (\\d+)\\]");
    /** The first word of a record's message, after Payara's ODL header (on the next line for some records). */
    private static final Pattern MESSAGE_START = Pattern.compile("\\[levelValue: \\d+\\]\\s*(\\S+)");
    private static final Pattern HELD = Pattern.compile("(\\d+) connection-pool log line\\(s\\) held back(?: \\(([^)]*)\\))?");

    /** @return the outages that began and ended in {@code server}'s log after byte {@code from} */
    private static List<Outage> outages(ServerProcess server, long from) throws IOException {
        byte[] all = Files.readAllBytes(server.logFile());
        String text = new String(all, (int) from, all.length - (int) from, java.nio.charset.StandardCharsets.UTF_8)
                .replaceAll("\u001B\\[[0-9;]*m", ""); // Payara colours the console even into a file
        List<Outage> outages = new ArrayList<>();
        long openedMs = -1;
        List<long[]> poolLines = new ArrayList<>(); // {time, index of the id}
        for (String r : RECORD_START.split(text)) {
            Matcher t = TIME_MILLIS.matcher(r);
            if (!t.find()) {
                continue;
            }
            long ms = Long.parseLong(t.group(1));
            Matcher m = MESSAGE_START.matcher(r);
            String first = m.find() ? m.group(1) : "";
            if (r.contains("task.ledger UNREACHABLE")) {
                openedMs = ms;
                poolLines.clear();
            } else if (r.contains("task.ledger reachable again") && openedMs >= 0) {
                Map<String, Long> logged = new TreeMap<>();
                for (long[] line : poolLines) {
                    if (line[0] > openedMs && line[0] < ms) {
                        logged.merge(PoolLogFilter.MESSAGE_IDS.get((int) line[1]), 1L, Long::sum);
                    }
                }
                Matcher h = HELD.matcher(r);
                assertTrue(h.find(), "the closing line counts the held-back pool lines: " + r);
                Map<String, Long> held = new TreeMap<>();
                if (h.group(2) != null) {
                    for (String part : h.group(2).split(", ")) {
                        String[] idAndCount = part.split(" ");
                        held.put(idAndCount[0], Long.valueOf(idAndCount[1]));
                    }
                }
                assertEquals(Long.parseLong(h.group(1)), held.values().stream().mapToLong(Long::longValue).sum(),
                        "the closing line's total is the sum of its ids: " + r);
                outages.add(new Outage(server.toString(), ms - openedMs, logged, held));
                openedMs = -1;
            } else {
                for (int i = 0; i < PoolLogFilter.MESSAGE_IDS.size(); i++) {
                    if (first.startsWith(PoolLogFilter.MESSAGE_IDS.get(i))) {
                        poolLines.add(new long[] {ms, i});
                    }
                }
            }
        }
        return outages;
    }

    /** (c) A partition: nothing forwarded for 20 s, then healed. */
    @Test
    void aDatabasePartitionOfTwentySecondsFailsNothing() throws Exception {
        survives("database partition", () -> {
            pg.partition();
            lasts(pg, Duration.ofSeconds(20));
        });
    }

    /**
     * (d) Every server connection terminated by PostgreSQL, five times, 1 s apart: the backends named
     * {@link #APP_NAME} (pool and live listener of both servers), not those of the classes running beside this one.
     */
    @Test
    void backendsTerminatedFiveTimesFailNothing() throws Exception {
        survives("backends terminated", () -> {
            for (int i = 0; i < 5; i++) {
                data.count("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity"
                        + " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                        + " AND backend_type = 'client backend' AND application_name = ?", APP_NAME);
                pause(Duration.ofSeconds(1));
            }
        });
    }

    /** Redis cut the same way: every connection closed, new ones refused for 10 s ({@link #OUTAGE}; (b): 60 s). */
    @Test
    void aRedisRestartFailsNothing() throws Exception {
        survives("redis restart of " + OUTAGE.toSeconds() + " s", cut(redis, OUTAGE));
    }

    /** A cut of {@code proxy}'s connections for {@code length}, then healed. */
    private static Fault cut(FaultProxy proxy, Duration length) {
        return () -> {
            proxy.cut();
            lasts(proxy, length);
        };
    }

    /** The fault's length (the scenario itself, a 10 s restart, not an ordering device), then the heal. */
    private static void lasts(FaultProxy proxy, Duration length) throws Exception {
        pause(length);
        proxy.heal();
    }

    /** A fault of the scenario: injects it, lasts its length, heals it. */
    interface Fault {
        void run() throws Exception;
    }

    /** Submits a round of 40 exports and 10 reminders, runs the fault while they are in flight, checks the outcome. */
    private void survives(String what, Fault fault) throws Exception {
        int unavailableBefore = UNAVAILABLE.get();
        Map<UUID, Long> versions = new HashMap<>();
        for (UUID t : reminderTickets) {
            versions.put(t, version(t));
        }
        List<UUID> exports = new ArrayList<>();
        List<UUID> reminders = new ArrayList<>();
        for (int i = 0; i < EXPORTS; i++) {
            exports.add(UUID.fromString(create(i % 2 == 0 ? a : b, exporting, exportBody())));
            if (i % 4 == 0) {
                UUID ticket = reminderTickets.get(i / 4);
                reminders.add(UUID.fromString(create(i % 8 == 0 ? b : a, reminding, "{\"kind\":\"REMINDER\",\"ticketId\":\""
                        + ticket + "\",\"message\":\"" + what + "\",\"recipients\":\"ASSIGNEE\"}")));
            }
        }
        List<UUID> all = new ArrayList<>(exports);
        all.addAll(reminders);
        long inFlight = count(all, "status <> 'COMPLETED'");
        Instant faultAt = Instant.now();
        fault.run();
        awaitTrue(() -> count(all, "status IN ('COMPLETED', 'FAILED')") == all.size(),
                () -> what + ": every task finished; statuses " + statuses(all));
        // R48: no permit of the bound on export statements leaked through the fault (an export's permit is given
        // back right after its result write, so it may trail the COMPLETED row by a moment).
        for (ServerProcess server : List.of(a, b)) {
            awaitTrue(() -> backgroundStatements(server).equals("running 0, waiting 0"),
                    () -> what + ": a server's background statements after the fault: " + backgroundStatements(server));
        }
        assertAll(what,
                () -> assertTrue(inFlight >= EXPORTS / 2, "the fault met work in flight: " + inFlight + " unfinished"),
                () -> assertEquals(0, count(all, "status = 'FAILED'"), "none FAILED: " + failures(all)),
                () -> assertEquals(all.size(), count(all, "status = 'COMPLETED'")),
                () -> assertEquals(all.size(), count(all, "attempts = 1 AND run = 0"),
                        "the outage used none of the attempts: " + statuses(all)),
                () -> {
                    for (UUID r : reminders) {
                        assertEquals(1, data.count("SELECT count(*) FROM notification WHERE task_id = ?", r), "notifications");
                        assertEquals(1, data.count("SELECT count(*) FROM system_event WHERE task_id = ?", r), "events");
                    }
                    for (UUID t : reminderTickets) {
                        assertEquals(versions.get(t) + 1, version(t), "ticket " + t + " version +1");
                    }
                },
                () -> {
                    for (UUID e : exports) {
                        assertArrayEquals(controlCsv, download(e.hashCode() % 2 == 0 ? a : b, e), "CSV of " + e);
                    }
                });
        int retried = UNAVAILABLE.get() - unavailableBefore;
        assertTrue(retried <= 2 * com.teamdesk.tasks.platform.AppDataSource.MAX_POOL, retried + " requests answered 503:"
                + " more than the two pools' connections, so the pool did not heal by dropping each dead one");
        System.out.println(what + ": " + inFlight + " of 50 tasks unfinished when the fault began; all COMPLETED "
                + Duration.between(faultAt, Instant.now()).toSeconds() + " s after it began; " + retried
                + " request(s) answered 503 once a dead pooled connection was met, and were retried");
    }

    // ---- helpers -----------------------------------------------------------------------------------

    private static String exportBody() {
        return "{\"kind\":\"EXPORT\",\"scope\":\"TEAM\",\"filters\":{\"status\":[\"OPEN\"]},\"timeZone\":\"UTC\"}";
    }

    private static UUID ticket(TestTeam t, String title) {
        UUID id = UUID.randomUUID();
        data.exec("INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at,"
                + " updated_at, version) VALUES (?, ?, ?, ?, 'OPEN', 'NORMAL', ?, ?, now(), now(), 1)", id, t.id(), title,
                "Body of " + title, t.staff(), t.customer());
        return id;
    }

    /** POSTs a task as the team's owner; @return its id */
    private static String create(ServerProcess server, TestTeam t, String body) throws Exception {
        Reply r;
        int tries = 0;
        do { // a client retries a 503 (Retry-After): see UNAVAILABLE
            r = Api.at(server.root().toURL()).post("teams/" + t.id() + "/tasks", Tokens.of(t.owner()), body);
        } while (unavailable(r.status(), ++tries));
        assertEquals(202, r.status(), r.toString());
        return r.json().getString("id");
    }

    /**
     * 503s answered after a fault healed. A pooled connection whose backend the fault ended is found dead by the
     * one request that next uses it, which answers 503 {@code service.unavailable} with Retry-After, and is then
     * dropped (AppDataSource, docs/decisions.md "Pool healing"): so a request may need a retry, and the count is
     * bounded by the pools' size. A pool that did not heal would fail every retry.
     */
    private static final java.util.concurrent.atomic.AtomicInteger UNAVAILABLE = new java.util.concurrent.atomic.AtomicInteger();

    /** @return true when {@code status} is a 503 the caller should retry (at most a pool's worth of tries) */
    private static boolean unavailable(int status, int tries) {
        if (status != 503 || tries > com.teamdesk.tasks.platform.AppDataSource.MAX_POOL) {
            return false;
        }
        UNAVAILABLE.incrementAndGet();
        return true;
    }

    private static byte[] download(ServerProcess server, UUID task) throws IOException, InterruptedException {
        HttpResponse<byte[]> r;
        int tries = 0;
        do { // a client retries a 503 (Retry-After): see UNAVAILABLE
            r = HTTP.send(HttpRequest.newBuilder(server.root().resolve("api/v1/tasks/" + task + "/result"))
                    .header("Authorization", "Bearer " + Tokens.of(exporting.owner())).timeout(Duration.ofSeconds(30))
                    .build(), HttpResponse.BodyHandlers.ofByteArray());
        } while (unavailable(r.statusCode(), ++tries));
        assertEquals(200, r.statusCode(), "download of " + task);
        return r.body();
    }

    /** @return the HTTP status of {@code GET path} on {@code server}, or -1 when it does not answer */
    private static int code(ServerProcess server, String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(server.root().resolve(path)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** @return the server's R48 gauges as "running N, waiting M", from {@code GET /metrics} */
    private static String backgroundStatements(ServerProcess server) {
        try {
            String body = HTTP.send(HttpRequest.newBuilder(server.root().resolve("metrics")).timeout(Duration.ofSeconds(5))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
            return "running " + gauge(body, "running") + ", waiting " + gauge(body, "waiting");
        } catch (IOException e) {
            return "unanswered: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static String gauge(String metrics, String state) {
        return metrics.lines().filter(l -> l.startsWith("teamdesk_background_statements{")
                        && l.contains("state=\"" + state + "\""))
                .map(l -> String.valueOf((long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))))
                .findFirst().orElse("absent");
    }

    private static String status(UUID task) {
        return String.valueOf(data.value("SELECT status FROM background_task WHERE id = ?", task));
    }

    private static long version(UUID ticket) {
        return ((Number) data.value("SELECT version FROM ticket WHERE id = ?", ticket)).longValue();
    }

    private static long count(List<UUID> ids, String condition) {
        return data.count("SELECT count(*) FROM background_task WHERE " + IN_IDS + " AND " + condition, csv(ids));
    }

    private static String statuses(List<UUID> ids) {
        return String.valueOf(data.value("SELECT string_agg(status || '/' || attempts, ' ') FROM background_task"
                + " WHERE " + IN_IDS, csv(ids)));
    }

    private static String failures(List<UUID> ids) {
        return String.valueOf(data.value("SELECT string_agg(DISTINCT last_error, ' | ') FROM background_task"
                + " WHERE " + IN_IDS + " AND status = 'FAILED'", csv(ids)));
    }

    /** The ids as one text parameter (a String[] would be spread over the varargs). */
    private static final String IN_IDS = "id = ANY(string_to_array(?, ',')::uuid[])";

    private static String csv(List<UUID> ids) {
        return String.join(",", ids.stream().map(UUID::toString).toList());
    }

    /** The fault's length: the scenario itself (a 10 s restart), not an ordering device. */
    private static void pause(Duration d) throws InterruptedException {
        Thread.sleep(d.toMillis());
    }

    private static void awaitTrue(BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        Instant deadline = Instant.now().plus(HEAL);
        RuntimeException last = null;
        while (Instant.now().isBefore(deadline)) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (RuntimeException e) {
                last = e; // the test's own connection may meet the fault too; ask again
            }
            Thread.sleep(200);
        }
        throw new AssertionError("timed out: " + what.get(), last);
    }

    private static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v;
    }
}
