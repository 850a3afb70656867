package com.teamdesk.tasks.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.lifecycle.SharedServer;
import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.TestData;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.Tokens;
import jakarta.json.JsonValue;
import java.net.URL;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * R25 {@code Idempotency-Key} over HTTP, and R24's {@code runAt} validation and list filter: the
 * same caller, key and body answer the original task (same id, status and {@code Location}); 20
 * identical POSTs racing with one key create one task; a different body is 422; a request racing
 * one still in flight is 409; a key over 255 characters is 400; keys of retry and cancel; the
 * reuse of an expired key. Worker and timers are off, so tasks stay as created.
 */
@Execution(ExecutionMode.SAME_THREAD)
class IdempotencyIT {
    @RegisterExtension
    static final SharedServer SERVER = SharedServer.apiOnly();

    final URL url = SERVER.url();

    final TestData data = TestData.fromEnvironment();
    private Api api;
    private TestTeam t;
    private String staff;

    @BeforeEach
    void setUp() {
        api = Api.at(url);
        t = data.newTeam();
        staff = Tokens.of(t.staff());
    }

    private static final String EXPORT = "{\"kind\":\"EXPORT\",\"scope\":\"TEAM\",\"filters\":{\"status\":[\"OPEN\"]}}";

    /** 20 identical POSTs at once with one key: one task; every success names it; a replay too. */
    @Test
    void twentyConcurrentIdenticalPostsCreateOneTask() throws Exception {
        String key = "k-" + UUID.randomUUID();
        ExecutorService pool = Executors.newFixedThreadPool(20);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Reply>> replies = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                replies.add(pool.submit(() -> {
                    start.await();
                    return create(key, EXPORT);
                }));
            }
            start.countDown();
            Set<String> ids = new HashSet<>();
            int accepted = 0;
            for (Future<Reply> f : replies) {
                Reply r = f.get(60, TimeUnit.SECONDS);
                if (r.status() == 202) {
                    accepted++;
                    ids.add(r.json().getString("id"));
                    assertEquals("/api/v1/tasks/" + r.json().getString("id"), r.header("Location"));
                } else {
                    assertEquals(409, r.status(), r.toString());
                    assertEquals("idempotency.in_progress", r.problemCode().orElse(null));
                }
            }
            assertTrue(accepted >= 1, "at least the first was accepted");
            assertEquals(1, ids.size(), "every accepted answer names the same task: " + ids);
            assertEquals(1, data.count("SELECT count(*) FROM background_task WHERE team_id = ?", t.id()), "one task");

            String id = ids.iterator().next();
            Reply replay = create(key, EXPORT);
            assertEquals(202, replay.status(), replay.toString());
            assertEquals(id, replay.json().getString("id"));
            assertEquals("/api/v1/tasks/" + id, replay.header("Location"));
            assertEquals("true", replay.header("Idempotent-Replayed"));
        } finally {
            pool.shutdownNow();
        }
    }

    /** The same key with another body (or another endpoint) is 422; the first task stays the only one. */
    @Test
    void aKeyReusedForAnotherRequestIs422() {
        String key = "k-" + UUID.randomUUID();
        Reply first = create(key, EXPORT);
        assertEquals(202, first.status(), first.toString());
        Reply other = create(key, "{\"kind\":\"EXPORT\",\"scope\":\"SELF\"}");
        assertEquals(422, other.status(), other.toString());
        assertEquals("idempotency.key_reused", other.problemCode().orElse(null));
        Reply elsewhere = post("tasks/" + first.json().getString("id") + "/cancel", key);
        assertEquals(422, elsewhere.status(), "another endpoint is another request: " + elsewhere);
        assertEquals(1, data.count("SELECT count(*) FROM background_task WHERE team_id = ?", t.id()));
        // The key is per caller: the owner may use the same key for anything.
        Reply owners = api.send("POST", api.uri("teams/" + t.id() + "/tasks"), Tokens.of(t.owner()), EXPORT,
                List.of("Idempotency-Key", key));
        assertEquals(202, owners.status(), owners.toString());
        assertEquals(2, data.count("SELECT count(*) FROM background_task WHERE team_id = ?", t.id()));
    }

    /**
     * A request racing an identical one still in flight: the key row is inserted by an open
     * transaction (what the first request's transaction holds until its commit); the second request
     * waits 300 ms for it, then answers 409. Once that transaction rolls back, the key is free.
     */
    @Test
    void aRequestRacingOneInFlightIs409() throws Exception {
        String key = "k-" + UUID.randomUUID();
        try (Connection c = data.connection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO idempotency_key (caller_id, idem_key, fingerprint,"
                    + " response_status, task_id, created_at, expires_at) VALUES (?, ?, 'in-flight', 202, ?, now(),"
                    + " now() + interval '1 day')")) {
                ps.setObject(1, t.staff());
                ps.setString(2, key);
                ps.setObject(3, UUID.randomUUID());
                ps.executeUpdate();
            }
            Reply racing = create(key, EXPORT);
            assertEquals(409, racing.status(), racing.toString());
            assertEquals("idempotency.in_progress", racing.problemCode().orElse(null));
            c.rollback();
        }
        assertEquals(0, data.count("SELECT count(*) FROM background_task WHERE team_id = ?", t.id()), "nothing created");
        assertEquals(202, create(key, EXPORT).status(), "the key is free after the rollback");
    }

    /** A key of 255 characters is accepted, 256 is 400; an empty one too. */
    @Test
    void keyLength() {
        assertEquals(202, create("k".repeat(255), EXPORT).status());
        Reply tooLong = create("k".repeat(256), EXPORT);
        assertEquals(400, tooLong.status(), tooLong.toString());
        assertEquals("idempotency.key_invalid", tooLong.problemCode().orElse(null));
        assertEquals(1, data.count("SELECT count(*) FROM background_task WHERE team_id = ?", t.id()));
    }

    /**
     * Retry and cancel honour the key: a replayed cancel answers 200 with the task and writes
     * nothing; a replayed retry answers 202 and starts no second run; an error (409) records no key.
     */
    @Test
    void retryAndCancelReplay() {
        String id = create(null, EXPORT).json().getString("id");
        String cancelKey = "c-" + UUID.randomUUID();
        Reply cancelled = post("tasks/" + id + "/cancel", cancelKey);
        assertEquals(200, cancelled.status(), cancelled.toString());
        assertEquals("CANCELLED", cancelled.json().getString("status"));
        Object updatedAt = data.value("SELECT updated_at FROM background_task WHERE id = ?::uuid", id);
        Reply again = post("tasks/" + id + "/cancel", cancelKey);
        assertEquals(200, again.status());
        assertEquals("true", again.header("Idempotent-Replayed"));
        assertEquals(updatedAt, data.value("SELECT updated_at FROM background_task WHERE id = ?::uuid", id));

        String retryKey = "r-" + UUID.randomUUID();
        Reply retried = post("tasks/" + id + "/retry", retryKey);
        assertEquals(202, retried.status(), retried.toString());
        assertEquals(1, retried.json().getInt("run"));
        Reply replay = post("tasks/" + id + "/retry", retryKey);
        assertEquals(202, replay.status());
        assertEquals(1, replay.json().getInt("run"), "no second run");
        assertEquals("/api/v1/tasks/" + id, replay.header("Location"));

        String failingKey = "f-" + UUID.randomUUID();
        Reply notFailed = post("tasks/" + id + "/retry", failingKey);
        assertEquals(409, notFailed.status(), "a WAITING task cannot be retried: " + notFailed);
        assertEquals(0, data.count("SELECT count(*) FROM idempotency_key WHERE idem_key = ?", failingKey),
                "an error records no key: it rolled back with the work");
    }

    /** runAt: the scheduled filter lists the task; past, over a year ahead, or without offset → 400. */
    @Test
    void runAtValidationAndTheScheduledFilter() {
        String in1h = OffsetDateTime.now(ZoneOffset.ofHours(8)).plusHours(1).truncatedTo(ChronoUnit.SECONDS).toString();
        Reply scheduled = create(null, "{\"kind\":\"EXPORT\",\"runAt\":\"" + in1h + "\"}");
        assertEquals(202, scheduled.status(), scheduled.toString());
        assertEquals(Instant.parse(scheduled.json().getString("runAt")), OffsetDateTime.parse(in1h).toInstant());
        assertEquals(JsonValue.NULL, scheduled.json().get("cancelledAt"));
        String now = create(null, EXPORT).json().getString("id");
        Reply list = api.get("teams/" + t.id() + "/tasks?status=WAITING&scheduled=true", staff);
        assertEquals(200, list.status(), list.toString());
        assertEquals(1, list.json().getJsonArray("items").size());
        assertEquals(scheduled.json().getString("id"), list.json().getJsonArray("items").getJsonObject(0).getString("id"));
        Reply notScheduled = api.get("teams/" + t.id() + "/tasks?scheduled=false", staff);
        assertEquals(now, notScheduled.json().getJsonArray("items").getJsonObject(0).getString("id"));

        for (String bad : List.of(OffsetDateTime.now(ZoneOffset.UTC).minusHours(1).toString(),
                OffsetDateTime.now(ZoneOffset.UTC).plusDays(400).toString(), "2030-01-02T09:00:00", "tomorrow")) {
            Reply r = create(null, "{\"kind\":\"EXPORT\",\"runAt\":\"" + bad + "\"}");
            assertEquals(400, r.status(), bad + ": " + r);
            assertEquals("task.run_at_invalid", r.problemCode().orElse(null), bad);
        }
        assertEquals(400, api.get("teams/" + t.id() + "/tasks?scheduled=maybe", staff).status());
    }

    /** Keys expire after 24 h: an expired key is reused in place (the sweep is in TaskLifecycleIT). */
    @Test
    void anExpiredKeyIsReused() {
        String key = "e-" + UUID.randomUUID();
        String first = create(key, EXPORT).json().getString("id");
        assertEquals(1, data.exec("UPDATE idempotency_key SET expires_at = now() - interval '1 second'"
                + " WHERE caller_id = ? AND idem_key = ?", t.staff(), key));
        String second = create(key, EXPORT).json().getString("id");
        assertTrue(!first.equals(second), "after 24 h the key is new again");
        assertEquals(1, data.count("SELECT count(*) FROM idempotency_key WHERE caller_id = ? AND idem_key = ?"
                + " AND task_id = ?::uuid", t.staff(), key, second));
    }

    private Reply create(String key, String body) {
        return api.send("POST", api.uri("teams/" + t.id() + "/tasks"), staff, body,
                key == null ? null : List.of("Idempotency-Key", key));
    }

    private Reply post(String path, String key) {
        return api.send("POST", api.uri(path), staff, null, List.of("Idempotency-Key", key));
    }
}
