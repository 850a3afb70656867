package com.teamdesk.tasks.it.lifecycle;

import com.teamdesk.tasks.it.export.ClientQueue;
import com.teamdesk.tasks.it.support.Poll;
import com.teamdesk.tasks.it.support.TestData.TestTeam;
import com.teamdesk.tasks.it.support.Tokens;
import com.teamdesk.tasks.queue.JobState;
import com.teamdesk.tasks.queue.QueueKeys;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.testing.LocalRedisCluster;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 17 end to end: the production WAR in a real Payara Micro process whose {@code teamdesk.redis.url}
 * is a {@code redis-cluster://} URL of a real local cluster (three masters, three replicas on ports
 * 7121-7126). An export created through the API is dispatched, run and downloaded with every key of the
 * queue in one hash-tagged slot; then the master of that slot is killed, the replica takes over, and the
 * next export completes through the new master with no restart (the worker's loops ride out the outage).
 * A job in flight during such a failover is covered by {@code QueueClusterFailoverTest}.
 */
class RedisClusterIT {
    /** Stops the queue client, the server and the cluster, then drops the schema, after the class. */
    @RegisterExtension
    static final ClassResources RESOURCES = new ClassResources();
    private static final Duration READY = Duration.ofSeconds(180);
    private static final Duration SYNC = Duration.ofSeconds(120);
    private static final int TICKETS = 30;

    private static PrivateSchema data;
    private static LocalRedisCluster cluster;
    private static ServerProcess server;
    private static ClientQueue queue;

    @BeforeAll
    static void start() throws Exception {
        data = RESOURCES.schema();
        cluster = RESOURCES.add(LocalRedisCluster.start(Integer.getInteger("teamdesk.test.itClusterPort", 7121)));
        String prefix = "it-cluster-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> env = new HashMap<>();
        env.put("TEAMDESK_DB_URL", data.url());
        env.put("TEAMDESK_REDIS_URL", cluster.url());
        env.put("TEAMDESK_REDIS_PREFIX", prefix);
        env.put("TEAMDESK_TIMERS_ENABLED", "true");
        env.put("TEAMDESK_EXPORT_BATCH_SIZE", "7");
        server = RESOURCES.add(ServerProcess.start("redis-cluster", env));
        JsonObject health = server.awaitReady(READY);
        assertEquals("UP", ServerProcess.checkData(health).getString("redis"));
        queue = RESOURCES.add(new ClientQueue(cluster.url(), QueueKeys.hashTagged(prefix))); // as the server hash-tags it
    }

    @Test
    void anExportRunsOnTheClusterAndTheNextOneAfterTheQueuesMasterDied() throws Exception {
        TestTeam t = data.newTeam();
        tickets(t);

        UUID first = export(t);
        awaitCompleted(first);
        assertTrue(QueueKeys.hasHashTag(queue.queue().keys().base()), queue.queue().keys().base());
        // The ledger commits COMPLETED before the worker tells the queue (R12), so the job's record follows.
        String firstJob = TaskJobId.of(first, 0).toString();
        awaitTrue(() -> queue.queue().getJob(firstJob).map(j -> j.state() == JobState.COMPLETED).orElse(false),
                "the job record lives in the cluster under the server's hash-tagged prefix, and becomes COMPLETED");
        String csv = result(t, first);
        assertEquals(TICKETS + 1, csv.strip().split("\r\n").length, "header and every ticket: " + csv);

        HostAndPort master = cluster.masterOf(queue.queue().keys().base());
        int replica = cluster.replicaOf(master.getPort());
        try (Jedis j = LocalRedisCluster.node(master.getPort())) {
            j.shutdown();
        } catch (RuntimeException expected) {
            // the connection closes under the reply
        }
        LocalRedisCluster.awaitMaster(replica, SYNC);

        UUID second = export(t);
        awaitCompleted(second);
        assertEquals(TICKETS + 1, result(t, second).strip().split("\r\n").length);
        assertEquals(1L, data.count("SELECT count(*) FROM background_task WHERE id = ? AND run = 0 AND attempts = 1",
                second), "one run, one attempt");
        awaitTrue(() -> health() == 200, "the server reports itself UP through the new master");
    }

    private UUID export(TestTeam t) throws Exception {
        HttpResponse<String> r = server.send("POST", "api/v1/teams/" + t.id() + "/tasks", Tokens.of(t.staff()),
                "{\"kind\":\"EXPORT\",\"scope\":\"TEAM\"}");
        assertEquals(202, r.statusCode(), r.body());
        return UUID.fromString(ServerProcess.json(r.body()).getString("id"));
    }

    private String result(TestTeam t, UUID task) throws Exception {
        HttpResponse<String> r = server.send("GET", "api/v1/tasks/" + task + "/result", Tokens.of(t.staff()), null);
        assertEquals(200, r.statusCode(), r.body());
        return r.body();
    }

    private void awaitCompleted(UUID task) throws InterruptedException {
        awaitTrue(() -> "COMPLETED".equals(data.value("SELECT status FROM background_task WHERE id = ?", task)),
                "task " + task + " COMPLETED (now " + data.value("SELECT status || ' ' || coalesce(last_error, '')"
                        + " FROM background_task WHERE id = ?", task) + ")");
    }

    private int health() {
        try {
            return server.health().map(HttpResponse::statusCode).orElse(0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    private void tickets(TestTeam t) {
        data.exec("INSERT INTO ticket (id, team_id, title, body, status, priority, assignee_id, requester_id, created_at,"
                + " updated_at, version) SELECT gen_random_uuid(), ?, 'Ticket ' || g, 'Body ' || g, 'OPEN', 'NORMAL', ?, ?,"
                + " now() - make_interval(secs => g), now() - make_interval(secs => g), 1 FROM generate_series(1, "
                + TICKETS + ") g", t.id(), t.staff(), t.customer());
    }



    /** Bounded poll of a state change (orders nothing). */
    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        Poll.until(condition, SYNC, "timed out: " + what);
    }
}
