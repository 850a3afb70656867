package com.teamdesk.tasks.testing;

import com.teamdesk.tasks.queue.RedisClients;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;
import redis.clients.jedis.UnifiedJedis;

/**
 * Before the first integration test: the test database exists ({@link TestDatabase#ensure()}) and Redis
 * ({@code TEAMDESK_REDIS_URL}) answers PING. Either failing ends the test run at once with the reason: the
 * suite never skips for a missing service. Registered through {@code META-INF/services}; it acts only where
 * the system property {@code teamdesk.test.services} is {@code required} (Failsafe's configuration), so a
 * unit test run needs neither service.
 *
 * <p>Where the system property {@code teamdesk.test.redisCluster} names a base port (the Surefire run of
 * the queue's tests on a Redis Cluster), a fresh local cluster ({@link LocalRedisCluster}) is started on
 * it before the first test and stopped after the last.
 *
 * <p>After the last test it deletes the Redis keys of the prefixes given to
 * {@link TestRedisPrefixes#deleteAtSessionEnd(String)} (the Arquillian deployments').
 */
public final class TestServices implements LauncherSessionListener {

    /** Value of {@code teamdesk.test.services} that turns the check on. */
    public static final String REQUIRED = "required";

    /** System property naming the base port of a local Redis Cluster to run for this session. */
    public static final String REDIS_CLUSTER = "teamdesk.test.redisCluster";

    private LocalRedisCluster cluster;

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        String clusterPort = System.getProperty(REDIS_CLUSTER, "");
        if (!clusterPort.isBlank()) {
            cluster = LocalRedisCluster.start(Integer.parseInt(clusterPort.strip()));
        }
        if (REQUIRED.equals(System.getProperty("teamdesk.test.services"))) {
            TestDatabase.ensure();
            pingRedis();
        }
    }

    @Override
    public void launcherSessionClosed(LauncherSession session) {
        try {
            TestRedisPrefixes.sessionClosed();
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    private static void pingRedis() {
        String url = System.getenv().getOrDefault("TEAMDESK_REDIS_URL", "redis://127.0.0.1:6379");
        try (UnifiedJedis jedis = RedisClients.open(url, 1)) {
            String pong = jedis.ping();
            if (!"PONG".equals(pong)) {
                throw new IllegalStateException("Redis at " + RedisClients.redact(url) + " answered PING with " + pong);
            }
        } catch (RuntimeException e) {
            throw new IllegalStateException("Redis at " + RedisClients.redact(url) + " (TEAMDESK_REDIS_URL) does not answer: "
                    + e.getMessage() + " (start it, e.g. redis-server, or run ./teamdesk test)", e);
        }
    }
}
