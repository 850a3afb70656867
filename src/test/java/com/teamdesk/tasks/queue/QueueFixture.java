package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.teamdesk.tasks.testing.TestRedisPrefixes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import redis.clients.jedis.UnifiedJedis;

/**
 * Base of the queue tests: a real Redis (TEAMDESK_REDIS_URL, default redis://127.0.0.1:6379; a missing
 * Redis fails the test), a random key prefix per test that is obliterated afterwards, an executor, and
 * workers that are closed after the test. Ordering comes from latches and listener events; the bounded
 * waits here only detect a sync point that never came.
 */
abstract class QueueFixture {

    /** Upper bound of every wait for a sync point. */
    static final long MAX_WAIT_MS = 8_000;

    /** Short lock, renewal and stalled-check timings so that lock expiry takes about a second. */
    static final WorkerOptions FAST = WorkerOptions.defaults()
            .withLockDurationMs(1_000).withLockRenewMs(250).withStalledIntervalMs(100)
            .withRetentionTrimIntervalMs(100).withHeartbeatTtlMs(3_000);

    protected UnifiedJedis redis;
    protected String prefix;
    protected String queueName;
    protected Queue queue;
    protected ExecutorService executor;
    protected final Events events = new Events();
    private final List<Worker> workers = new ArrayList<>();
    private final List<CountDownLatch> gates = new ArrayList<>();

    @BeforeEach
    void openRedis() {
        String url = System.getenv().getOrDefault("TEAMDESK_REDIS_URL", "redis://127.0.0.1:6379");
        redis = RedisClients.open(url, 64);
        redis.ping(); // a missing Redis fails here
        if (System.getProperty("teamdesk.test.redisCluster") != null && !RedisClients.isCluster(redis)) {
            fail("this run is the queue's tests on a Redis Cluster, but TEAMDESK_REDIS_URL is " + url);
        }
        prefix = TestRedisPrefixes.create("test");
        if (RedisClients.isCluster(url)) {
            prefix = QueueKeys.hashTagged(prefix); // the queue's keys share one slot
        }
        queueName = "jobs";
        queue = new Queue(redis, prefix, queueName);
        executor = Executors.newCachedThreadPool();
    }

    @AfterEach
    void cleanUp() throws InterruptedException {
        gates.forEach(CountDownLatch::countDown);
        try {
            for (Worker w : workers) {
                w.close(Duration.ofSeconds(5));
            }
            if (prefix != null) {
                TestRedisPrefixes.delete(redis, prefix); // every queue of the test, not only this.queue
            }
        } finally {
            if (executor != null) {
                executor.shutdownNow();
                executor.awaitTermination(5, TimeUnit.SECONDS);
            }
            if (redis != null) {
                redis.close();
            }
        }
    }

    /** A latch released at the latest when the test ends, so that no processor stays blocked. */
    protected CountDownLatch gate() {
        CountDownLatch gate = new CountDownLatch(1);
        gates.add(gate);
        return gate;
    }

    /** A stopped worker on this test's queue, with {@link #events} as its listener. */
    protected Worker worker(WorkerOptions options, JobProcessor processor) {
        Worker w = new Worker(redis, prefix, queueName, options, processor, executor);
        w.addListener(events);
        workers.add(w);
        return w;
    }

    protected JobRecord job(String id) {
        return queue.getJob(id).orElseThrow(() -> new AssertionError("no job " + id));
    }

    /** Waits for a latch released by another thread. */
    static void await(CountDownLatch latch, String what) {
        try {
            assertTrue(latch.await(MAX_WAIT_MS, TimeUnit.MILLISECONDS), "timed out waiting for " + what);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted waiting for " + what);
        }
    }

    /** Bounded poll for a condition on Redis state that no event announces. */
    static void awaitCondition(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAX_WAIT_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting for " + what);
            }
            try {
                Thread.sleep(10); // bounded poll interval, not used for ordering
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted waiting for " + what);
            }
        }
    }

    /** A processor gate: waits for the gate, failing the execution if it never opens. */
    static void pass(CountDownLatch gate) throws InterruptedException {
        if (!gate.await(MAX_WAIT_MS, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("test gate never opened");
        }
    }
}
