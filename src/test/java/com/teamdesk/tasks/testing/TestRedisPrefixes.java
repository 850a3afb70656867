package com.teamdesk.tasks.testing;

import com.teamdesk.tasks.queue.QueueKeys;
import com.teamdesk.tasks.queue.RedisClients;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redis key prefixes of a test run, and their removal: a test leaves the Redis it runs on as it found
 * it (docs/spec.md, "Tests and Redis"). Every prefix a test (or a server it starts) writes under comes
 * from {@link #create(String)} (or is {@link #record(String) recorded}); its owner deletes the keys with
 * {@link #delete(String)} once nothing writes under it any more: the queue tests after each test
 * ({@code QueueFixture}), the classes that start their own server processes after the last one stopped
 * ({@link RedisPrefixCleanup}), and the Arquillian deployments at the end of the test session
 * ({@link #deleteAtSessionEnd(String)}), because the container stops their server without waiting for it.
 *
 * <p>Each prefix is also appended to {@link #LEDGER}, which {@code ./teamdesk test} reads after a run to
 * check that none of the run's prefixes has a key left on {@code TEAMDESK_REDIS_URL}. Keys under other
 * prefixes are not the suite's and are never touched.
 */
public final class TestRedisPrefixes {
    /** The run's prefixes, one a line, relative to the project directory; {@code ./teamdesk test} empties it first. */
    public static final Path LEDGER = Path.of(System.getProperty("teamdesk.test.redisPrefixLedger",
            "target/test-redis-prefixes.txt"));

    /** How long the end of the session waits for the Payara Micro processes the container stopped. */
    private static final Duration SERVERS_EXIT = Duration.ofSeconds(60);
    private static final Logger LOG = Logger.getLogger(TestRedisPrefixes.class.getName());
    private static final Set<String> RECORDED = ConcurrentHashMap.newKeySet();
    private static final Set<String> AT_SESSION_END = ConcurrentHashMap.newKeySet();

    private TestRedisPrefixes() {
    }

    /**
     * @param family what the prefix is for, e.g. {@code it-scale}; keys then start with {@code it-scale-<8 hex>}
     * @return a new random prefix, recorded in the {@link #LEDGER}
     */
    public static String create(String family) {
        return record(family + "-" + UUID.randomUUID().toString().substring(0, 8));
    }

    /**
     * Records a prefix this run writes under (once; later calls with it do nothing).
     *
     * @param prefix the prefix as configured (a server hash-tags it on a Redis Cluster)
     * @return {@code prefix}
     */
    public static String record(String prefix) {
        if (prefix.isEmpty()) {
            throw new IllegalArgumentException("empty Redis prefix");
        }
        if (RECORDED.add(prefix)) {
            try {
                Path parent = LEDGER.toAbsolutePath().getParent();
                Files.createDirectories(parent);
                Files.writeString(LEDGER, prefix + "\n", StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot record the Redis prefix " + prefix + " in " + LEDGER, e);
            }
        }
        return prefix;
    }

    /**
     * Deletes every key under {@code prefix} on {@code TEAMDESK_REDIS_URL} (what the tests and the servers
     * they start use). Call it when nothing writes under the prefix any more.
     *
     * @return how many keys were deleted
     */
    public static long delete(String prefix) {
        try (UnifiedJedis redis = RedisClients.open(redisUrl(), 2)) {
            return delete(redis, prefix);
        }
    }

    /**
     * Deletes every key under {@code prefix} through {@code redis}: {@code SCAN MATCH <prefix>*} and
     * {@code UNLINK} in pages ({@link RedisClients#unlinkByPrefix}). On a Redis Cluster the keys are under the
     * hash-tagged prefix, as the application and {@code QueueFixture} write them.
     *
     * @return how many keys were deleted
     */
    public static long delete(UnifiedJedis redis, String prefix) {
        String effective = RedisClients.isCluster(redis) ? QueueKeys.hashTagged(prefix) : prefix;
        long n = RedisClients.unlinkByPrefix(redis, effective);
        AT_SESSION_END.remove(prefix);
        return n;
    }

    /**
     * Records a prefix and deletes its keys when the test session ends (after the Payara Micro processes
     * this JVM started exited): for the Arquillian deployments, whose server the container stops with a
     * SIGTERM it does not wait for.
     *
     * @return {@code prefix}
     */
    public static String deleteAtSessionEnd(String prefix) {
        record(prefix);
        AT_SESSION_END.add(prefix);
        return prefix;
    }

    /** End of the test session ({@link TestServices}): waits for the servers, then deletes the session's prefixes. */
    static void sessionClosed() {
        if (AT_SESSION_END.isEmpty()) {
            return;
        }
        awaitPayaraChildrenExit();
        long keys = 0;
        for (String prefix : List.copyOf(AT_SESSION_END)) {
            keys += delete(prefix);
        }
        long deleted = keys;
        LOG.info(() -> "deleted " + deleted + " Redis keys of the test deployments' prefixes");
    }

    /** Waits (bounded) for the Payara Micro processes this JVM started; a server still writing would leave keys. */
    private static void awaitPayaraChildrenExit() {
        Instant deadline = Instant.now().plus(SERVERS_EXIT);
        for (ProcessHandle child : ProcessHandle.current().children().toList()) {
            boolean payara = child.info().commandLine().map(c -> c.contains("payara-micro")).orElse(false);
            if (!payara) {
                continue;
            }
            try {
                long left = Math.max(0, Duration.between(Instant.now(), deadline).toMillis());
                child.onExit().get(left, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                LOG.warning(() -> "Payara Micro process " + child.pid() + " still runs after " + SERVERS_EXIT
                        + "; deleting its Redis keys anyway (./teamdesk test reports any it writes later)");
            }
        }
    }

    private static String redisUrl() {
        return System.getenv().getOrDefault("TEAMDESK_REDIS_URL", "redis://127.0.0.1:6379");
    }
}
