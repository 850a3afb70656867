package com.teamdesk.tasks.testing;

import java.net.URI;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * Before the first integration test: the test database exists ({@link TestDatabase#ensure()}) and Redis
 * ({@code TEAMDESK_REDIS_URL}) answers PING. Either failing ends the test run at once with the reason: the
 * suite never skips for a missing service. Registered through {@code META-INF/services}; it acts only where
 * the system property {@code teamdesk.test.services} is {@code required} (Failsafe's configuration), so a
 * unit test run needs neither service.
 */
public final class TestServices implements LauncherSessionListener {

    /** Value of {@code teamdesk.test.services} that turns the check on. */
    public static final String REQUIRED = "required";

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        if (REQUIRED.equals(System.getProperty("teamdesk.test.services"))) {
            TestDatabase.ensure();
            pingRedis();
        }
    }

    private static void pingRedis() {
        String url = System.getenv().getOrDefault("TEAMDESK_REDIS_URL", "redis://127.0.0.1:6379");
        URI uri = URI.create(url);
        try (Jedis jedis = new Jedis(JedisURIHelper.getHostAndPort(uri),
                DefaultJedisClientConfig.builder(uri).connectionTimeoutMillis(5000).build())) {
            String pong = jedis.ping();
            if (!"PONG".equals(pong)) {
                throw new IllegalStateException("Redis at " + url + " answered PING with " + pong);
            }
        } catch (RuntimeException e) {
            throw new IllegalStateException("Redis at " + url + " (TEAMDESK_REDIS_URL) does not answer: "
                    + e.getMessage() + " (start it, e.g. redis-server, or run ./teamdesk test)", e);
        }
    }
}
