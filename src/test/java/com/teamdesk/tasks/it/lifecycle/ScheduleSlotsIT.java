package com.teamdesk.tasks.it.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.support.Poll;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.Tokens;
import jakarta.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 31 (R41) on the production path: two real server processes (A and B) on one private schema and one Redis
 * prefix, their own EJB dispatch timers materialising the schedules' slots (every 5 s on each) and their own
 * workers running the occurrences. Time is the database's: a schedule is made due by writing its next slot as
 * the slot its expression named last ({@code date_trunc} of the database's {@code now()}), never by waiting for
 * a minute to pass. Ordering is by sync points (the dispatch timer paused on both instances while the slots are
 * laid out, a row lock that holds a reminder RUNNING); waits are bounded polls that detect them.
 */
class ScheduleSlotsIT {
    /** Stops the servers, then drops the schema, after the class. */
    @RegisterExtension
    static final ClassResources RESOURCES = new ClassResources();

    private static final Duration READY = Duration.ofSeconds(180);
    private static final Duration SYNC = Duration.ofSeconds(90);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static PrivateSchema data;
    private static ServerProcess a;
    private static ServerProcess b;
    private static UUID ops;
    private static String prefix;

    @BeforeAll
    static void start() throws Exception {
        data = RESOURCES.schema();
        prefix = RESOURCES.prefix("it-sched");
        List<ServerProcess> servers = RESOURCES.startReady(READY, ServerProcess.env(data, prefix,
                Map.of("TEAMDESK_TIMERS_ENABLED", "true")), "sched-a", "sched-b");
        a = servers.get(0);
        b = servers.get(1);
        ops = data.newOperator();
    }

    @AfterEach
    void resumeDispatch() throws Exception {
        send(a, "POST", "api/v1/admin/timers/dispatch/resume");
    }

    /**
     * 20 schedules of one team due in the same minute, the dispatch timer on both instances: 20 tasks, one per
     * schedule and slot, each dispatched and COMPLETED with one attempt; every schedule moved on to its next slot
     * an hour later. Then the sweep run twice more by hand, on each instance: still 20.
     */
    @Test
    void twentySchedulesDueInOneMinuteMakeTwentyTasksAcrossBothInstances() throws Exception {
        TestTeam t = team();
        pauseDispatch();
        Instant slot = minute();
        List<UUID> schedules = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            schedules.add(hourlyExport(t, slot, "RUN_ONCE", "SKIP"));
        }
        resume();
        awaitTrue(() -> data.count("SELECT count(*) FROM background_task WHERE team_id = ? AND schedule_id IS NOT NULL"
                + " AND status = 'COMPLETED'", t.id()) == 20, "20 occurrences COMPLETED");
        for (ServerProcess s : List.of(a, b)) {
            assertEquals(200, send(s, "POST", "api/v1/admin/timers/dispatch/run").statusCode());
        }
        for (UUID s : schedules) {
            assertEquals(1L, data.count("SELECT count(*) FROM background_task WHERE schedule_id = ?", s), "one task of " + s);
            assertEquals(1L, data.count("SELECT count(*) FROM background_task WHERE schedule_id = ? AND slot_at = ?"
                    + " AND attempts = 1 AND dispatched_at IS NOT NULL", s, ts(slot)), "for its slot, run once: " + s);
            assertEquals(ts(slot.plus(1, ChronoUnit.HOURS)), data.value("SELECT next_slot_at FROM task_schedule"
                    + " WHERE id = ?", s), "moved on an hour");
        }
        assertEquals(20L, data.count("SELECT count(*) FROM background_task WHERE team_id = ?", t.id()));
        assertEquals(0L, data.count("SELECT count(*) FROM schedule_skip k JOIN task_schedule s ON s.id = k.schedule_id"
                + " WHERE s.team_id = ?", t.id()));
    }

    /**
     * The dispatch timer paused for 3 hours (laid out as next slots 3 h 10 min before now, an hourly schedule
     * whose last slot was 10 minutes ago): on resume, RUN_ONCE makes one occurrence, for the latest of the four
     * missed slots, and records the other three as one MISSED row; SKIP makes none and records all four. Both
     * move on to their next slot, an hour after the last: never a burst.
     */
    @Test
    void slotsMissedWhileDispatchWasPausedRunOnceOrNotAtAll() throws Exception {
        TestTeam t = team();
        pauseDispatch();
        Instant latest = minute().minus(10, ChronoUnit.MINUTES);
        Instant first = latest.minus(3, ChronoUnit.HOURS);
        UUID once = hourlyExport(t, first, "RUN_ONCE", "SKIP");
        UUID skip = hourlyExport(t, first, "SKIP", "SKIP");
        resume();
        awaitTrue(() -> !ts(first).equals(data.value("SELECT next_slot_at FROM task_schedule WHERE id = ?", skip))
                && "COMPLETED".equals(data.value("SELECT status FROM background_task WHERE schedule_id = ?", once)),
                "both moved on, the run-once occurrence COMPLETED");
        assertEquals(ts(latest), data.value("SELECT slot_at FROM background_task WHERE schedule_id = ?", once),
                "one occurrence, for the latest missed slot");
        assertEquals(0L, data.count("SELECT count(*) FROM background_task WHERE schedule_id = ?", skip), "none");
        assertTrue(((String) data.value("SELECT detail FROM schedule_skip WHERE schedule_id = ? AND reason = 'MISSED'"
                + " AND slot_at = ?", once, ts(first))).startsWith("3 slot(s)"), "three missed, one run");
        assertTrue(((String) data.value("SELECT detail FROM schedule_skip WHERE schedule_id = ? AND reason = 'MISSED'"
                + " AND slot_at = ?", skip, ts(first))).startsWith("4 slot(s)"), "four missed, none run");
        for (UUID s : List.of(once, skip)) {
            assertEquals(ts(latest.plus(1, ChronoUnit.HOURS)), data.value("SELECT next_slot_at FROM task_schedule"
                    + " WHERE id = ?", s));
        }
    }

    /**
     * Overlap: a daily reminder schedule's occurrence (its slot an hour ago) is held RUNNING (the test holds the team row the reminder's
     * transaction locks); its next slot comes due: with overlap SKIP no second task, the slot recorded as skipped
     * with the reason; with QUEUE a second task waits its turn. Released, every occurrence completes once.
     */
    @Test
    void aSlotWhileThePreviousOccurrenceRunsIsSkippedWithTheReasonOrQueued() throws Exception {
        TestTeam t = team();
        UUID ticket = UUID.randomUUID();
        data.exec("INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at,"
                + " updated_at, version) VALUES (?, ?, 'Printer', 'Jams', 'OPEN', 'NORMAL', ?, ?, now(), now(), 1)",
                ticket, t.id(), t.staff(), t.customer());
        String params = "{\"ticketId\":\"" + ticket + "\",\"message\":\"Check the printer\",\"recipients\":\"TEAM_STAFF\"}";
        pauseDispatch();
        Instant slot = minute().minus(1, ChronoUnit.HOURS);
        UUID skip = schedule(t, "REMINDER", "TEAM", params, "SKIP", slot);
        UUID queue = schedule(t, "REMINDER", "TEAM", params, "QUEUE", slot);
        try (Connection hold = data.connection()) {
            hold.setAutoCommit(false);
            // the lock the reminder's transaction takes on its team row (R14); KEY SHARE (foreign keys) passes
            try (PreparedStatement ps = hold.prepareStatement("SELECT 1 FROM team WHERE id = ? FOR NO KEY UPDATE")) {
                ps.setObject(1, t.id());
                ps.executeQuery().close();
            }
            resume();
            awaitTrue(() -> data.count("SELECT count(*) FROM background_task WHERE schedule_id IN (?, ?) AND status ="
                    + " 'RUNNING'", skip, queue) == 2, "both first occurrences RUNNING, held at the team lock");
            pauseDispatch();
            // the next slot due (the database's clock half an hour on, as the slot of a schedule every 30 minutes)
            data.exec("UPDATE task_schedule SET next_slot_at = ? WHERE id IN (?, ?)",
                    ts(minute().minus(30, ChronoUnit.MINUTES)), skip, queue);
            resume();
            awaitTrue(() -> data.count("SELECT count(*) FROM schedule_skip WHERE schedule_id = ?", skip) == 1
                    && data.count("SELECT count(*) FROM background_task WHERE schedule_id = ?", queue) == 2,
                    "the SKIP schedule recorded its slot, the QUEUE one made a second task");
            assertEquals("OVERLAP", data.value("SELECT reason FROM schedule_skip WHERE schedule_id = ?", skip));
            assertTrue(((String) data.value("SELECT detail FROM schedule_skip WHERE schedule_id = ?", skip))
                    .contains("still waiting or running"));
            assertEquals(1L, data.count("SELECT count(*) FROM background_task WHERE schedule_id = ?", skip));
            hold.rollback();
        }
        // (a reminder that waited for the team lock longer than its lock_timeout (R36) was retried: attempts may be 2)
        awaitTrue(() -> data.count("SELECT count(*) FROM background_task WHERE schedule_id IS NOT NULL AND team_id = ?"
                + " AND status = 'COMPLETED'", t.id()) == 3, "the three occurrences complete");
        assertEquals(3L, data.count("SELECT count(*) FROM notification n JOIN background_task b ON b.id = n.task_id"
                + " WHERE b.team_id = ? AND n.recipient_id = ?", t.id(), t.staff()), "one reminder per occurrence");
    }

    /**
     * A kill -9 between materialising and dispatching: a third instance C whose Redis goes through a proxy runs the
     * sweep (the timer paused everywhere, C's sweep run by hand) with its Redis cut, so its dispatch step fails
     * after its materialise step committed 20 occurrences; C is killed with SIGKILL. Resumed, A and B dispatch
     * those 20 (they make no more: the slots are taken), each COMPLETED with one attempt.
     */
    @Test
    void aKillBetweenMaterialisingAndDispatchingLeavesOneDispatchedTaskPerSlot() throws Exception {
        TestTeam t = team();
        URI redisUrl = URI.create(System.getenv().getOrDefault("TEAMDESK_REDIS_URL", "redis://127.0.0.1:6379"));
        try (FaultProxy redis = FaultProxy.start("redis-c", redisUrl.getPort() < 0 ? 6379 : redisUrl.getPort());
                ServerProcess c = ServerProcess.start("sched-c", ServerProcess.env(data, prefix, Map.of(
                        "TEAMDESK_TIMERS_ENABLED", "true", "TEAMDESK_REDIS_URL", "redis://127.0.0.1:" + redis.port())))) {
            c.awaitReady(READY);
            pauseDispatch();
            Instant slot = minute();
            for (int i = 0; i < 20; i++) {
                hourlyExport(t, slot, "RUN_ONCE", "SKIP");
            }
            redis.cut();
            send(c, "POST", "api/v1/admin/timers/dispatch/run"); // its dispatch step fails: Redis is cut
            assertEquals(20L, data.count("SELECT count(*) FROM background_task WHERE team_id = ? AND slot_at = ?"
                    + " AND dispatched_at IS NULL", t.id(), ts(slot)), "C materialised 20 slots and dispatched none");
            new ProcessBuilder("kill", "-KILL", Long.toString(c.process().pid())).inheritIO().start().waitFor();
            assertTrue(c.awaitExit(Duration.ofSeconds(30)), "C is gone");
        }
        resume();
        awaitTrue(() -> data.count("SELECT count(*) FROM background_task WHERE team_id = ? AND status = 'COMPLETED'"
                + " AND attempts = 1 AND dispatched_at IS NOT NULL", t.id()) == 20, "A and B dispatch the 20; each runs once");
        assertEquals(20L, data.count("SELECT count(*) FROM background_task WHERE team_id = ?", t.id()), "no more tasks");
        assertEquals(20L, data.count("SELECT count(DISTINCT schedule_id) FROM background_task WHERE team_id = ?", t.id()));
    }

    // ---- helpers ----

    private static TestTeam team() {
        return data.newTeam();
    }

    /** An hourly TEAM export schedule at the slot's minute (UTC), due at {@code next}. */
    private static UUID hourlyExport(TestTeam t, Instant next, String missed, String overlap) {
        UUID id = UUID.randomUUID();
        int minute = next.atZone(java.time.ZoneOffset.UTC).getMinute();
        insert(id, t, "EXPORT", "TEAM", "{\"timeZone\":\"UTC\"}", minute + " * * * *", missed, overlap, next);
        return id;
    }

    /** A daily schedule of any kind at the slot's time of day (UTC), due at {@code next}. */
    private static UUID schedule(TestTeam t, String kind, String scope, String params, String overlap, Instant next) {
        UUID id = UUID.randomUUID();
        java.time.ZonedDateTime at = next.atZone(java.time.ZoneOffset.UTC);
        insert(id, t, kind, scope, params, at.getMinute() + " " + at.getHour() + " * * *", "RUN_ONCE", overlap, next);
        return id;
    }

    private static void insert(UUID id, TestTeam t, String kind, String scope, String params, String cron, String missed,
            String overlap, Instant next) {
        data.exec("INSERT INTO task_schedule (id, team_id, owner_id, name, kind, scope, params, cron, time_zone,"
                + " missed_slots, overlap, enabled, next_slot_at, version, created_by, created_at, updated_by, updated_at)"
                + " VALUES (?, ?, ?, 'IT schedule', ?, ?, ?::jsonb, ?, 'UTC', ?, ?, true, ?, 1, ?, now(), ?, now())",
                id, t.id(), t.staff(), kind, scope, params, cron, missed, overlap, ts(next), t.staff(), t.staff());
    }

    /** @return the database's current minute: the slot an every-minute expression named last */
    private static Instant minute() {
        return ((java.sql.Timestamp) data.value("SELECT date_trunc('minute', now())")).toInstant();
    }

    private static java.sql.Timestamp ts(Instant at) {
        return java.sql.Timestamp.from(at);
    }

    /** Pauses the dispatch timer on both instances and waits until each skipped a tick (no sweep in flight). */
    private static void pauseDispatch() throws Exception {
        assertEquals(200, send(a, "POST", "api/v1/admin/timers/dispatch/pause").statusCode());
        Map<String, Long> before = skipped();
        awaitTrue(() -> {
            Map<String, Long> now = skipped();
            // A and B (a killed instance's report lingers for three ticks, and skips nothing)
            return now.keySet().stream().filter(k -> now.get(k) > before.getOrDefault(k, -1L)).count() >= 2;
        }, "both instances skipped a paused tick");
    }

    private static void resume() throws Exception {
        assertEquals(200, send(b, "POST", "api/v1/admin/timers/dispatch/resume").statusCode());
    }

    /** @return per instance, how many ticks of the dispatch timer it skipped while paused */
    private static Map<String, Long> skipped() {
        try {
            Map<String, Long> out = new java.util.HashMap<>();
            for (jakarta.json.JsonValue i : ServerProcess.json(send(a, "GET", "api/v1/admin/timers").body())
                    .getJsonArray("items")) {
                for (jakarta.json.JsonValue timer : i.asJsonObject().getJsonArray("timers")) {
                    if ("dispatch".equals(timer.asJsonObject().getString("name"))) {
                        out.put(i.asJsonObject().getString("instance"),
                                timer.asJsonObject().getJsonNumber("skipped").longValue());
                    }
                }
            }
            return out;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static HttpResponse<String> send(ServerProcess s, String method, String path) throws Exception {
        String token = Tokens.with(ops, Json.createObjectBuilder().add("groups", Json.createArrayBuilder().add("member")
                .add("operator")));
        return HTTP.send(HttpRequest.newBuilder(s.root().resolve(path)).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + token).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Bounded poll of a condition (detects a sync point; orders nothing). */
    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        Poll.until(condition, SYNC, "timed out: " + what);
    }
}
