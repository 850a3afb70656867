package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.teamdesk.tasks.testing.LocalRedisCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * Issue 17: the queue on a real local Redis Cluster (three masters, three replicas) whose master of the
 * queue's slot goes away while a job is in flight.
 * <ul>
 * <li>{@code CLUSTER FAILOVER} (an operator's planned switch): the replica takes over with every write
 * replicated; the in-flight job completes once, and the worker goes on taking jobs through the new
 * master ({@code MOVED} followed by Jedis).</li>
 * <li>the master dies ({@code SHUTDOWN NOSAVE}): for the node timeout no one owns the slot, lock renewals
 * fail, the job's lock expires and the stalled check returns it to waiting once the replica has taken
 * over; the job runs again and completes exactly once, while the first execution's late completion is
 * refused (lock lost). Nothing is lost.</li>
 * </ul>
 * Each test gets a fresh cluster on ports 7111-7116 (the killed master cannot come back into its slot).
 * Ordering is by latches and worker events; the bounded polls only detect a state change.
 *
 * <p>The class runs beside the other unit tests (pom.xml, Surefire): most of its time is the cluster's failover
 * timeouts, and no other class of that run uses ports 7111-7116. Its own tests run one after another (each
 * method {@code SAME_THREAD}: they start their clusters on the same ports).
 */
@Execution(ExecutionMode.CONCURRENT)
class QueueClusterFailoverTest {

    private static final int BASE_PORT = Integer.getInteger("teamdesk.test.failoverClusterPort", 7111);
    private static final long MAX_WAIT_MS = 60_000;
    /** Production lock timings (30 s lock, renewed every 15 s); two slots. */
    private static final WorkerOptions PRODUCTION = WorkerOptions.defaults().withConcurrency(2);
    /** A 1 s lock, so that an outage of the node timeout (2 s) outlives it; two slots, so the re-run finds one. */
    private static final WorkerOptions SHORT_LOCK = WorkerOptions.defaults().withConcurrency(2)
            .withLockDurationMs(1_000).withLockRenewMs(250).withStalledIntervalMs(100)
            .withRetentionTrimIntervalMs(1_000).withHeartbeatTtlMs(3_000);

    private LocalRedisCluster cluster;
    private String prefix;
    private UnifiedJedis redis;
    private Queue queue;
    private Worker worker;
    private ExecutorService executor;
    private final Events events = new Events();
    private final List<CountDownLatch> gates = new ArrayList<>();

    @BeforeEach
    void freshCluster() {
        cluster = LocalRedisCluster.start(BASE_PORT);
        redis = RedisClients.open(cluster.url(), 32);
        prefix = QueueKeys.hashTagged("failover-" + UUID.randomUUID());
        queue = new Queue(redis, prefix, "jobs");
        executor = Executors.newCachedThreadPool();
    }

    @AfterEach
    void stop() throws InterruptedException {
        gates.forEach(CountDownLatch::countDown);
        try {
            if (worker != null) {
                worker.close(Duration.ofSeconds(10));
            }
        } finally {
            executor.shutdownNow();
            executor.awaitTermination(5, TimeUnit.SECONDS);
            redis.close();
            cluster.close();
        }
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void aPlannedFailoverOfTheQueuesMasterLosesNothingAndTheJobCompletesOnce() throws Exception {
        CountDownLatch holds = new CountDownLatch(1);
        CountDownLatch resume = gate();
        AtomicInteger runs = new AtomicInteger();
        startWorker(PRODUCTION, job -> {
            if (job.id().equals("in-flight") && runs.incrementAndGet() == 1) {
                holds.countDown();
                pass(resume);
            }
        });
        queue.add("in-flight", "x", JobOptions.defaults());
        await(holds, "the job to be in flight");

        HostAndPort master = cluster.masterOf(queue.keys().base());
        int replica = cluster.replicaOf(master.getPort());
        LocalRedisCluster.failover(replica, Duration.ofMillis(MAX_WAIT_MS));
        awaitCondition("the cluster to route the queue's slot to the new master",
                () -> cluster.masterOf(queue.keys().base()).getPort() == replica);

        resume.countDown();
        awaitEvents("completed", "in-flight", 1);
        JobRecord done = queue.getJob("in-flight").orElseThrow();
        assertEquals(JobState.COMPLETED, done.state());
        assertEquals(1, done.attemptsMade());
        assertEquals(0, done.stalledCounter(), "nothing was lost in a planned failover: no stall");
        assertEquals(1, runs.get());

        queue.add("after", "x", JobOptions.defaults());
        awaitEvents("completed", "after", 1);
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void whenTheQueuesMasterDiesTheInFlightJobStallsAndIsRunAgainOnceTheReplicaTookOver() throws Exception {
        CountDownLatch holds = new CountDownLatch(1);
        CountDownLatch resume = gate();
        AtomicInteger runs = new AtomicInteger();
        List<Throwable> firstRunEnd = new CopyOnWriteArrayList<>();
        startWorker(SHORT_LOCK, job -> {
            if (job.id().equals("in-flight") && runs.incrementAndGet() == 1) {
                holds.countDown();
                pass(resume);
                try {
                    job.updateProgress(50);
                } catch (RuntimeException e) {
                    firstRunEnd.add(e);
                    throw e;
                }
            }
        });
        queue.add("in-flight", "x", JobOptions.defaults());
        await(holds, "the job to be in flight");

        HostAndPort master = cluster.masterOf(queue.keys().base());
        int replica = cluster.replicaOf(master.getPort());
        try (Jedis j = LocalRedisCluster.node(master.getPort())) {
            j.shutdown(); // SHUTDOWN: with --save "" nothing is written; the process ends
        } catch (RuntimeException expected) {
            // the connection closes under the reply
        }
        LocalRedisCluster.awaitMaster(replica, Duration.ofMillis(MAX_WAIT_MS));

        awaitEvents("stalled", "in-flight", 1);
        awaitEvents("completed", "in-flight", 1);
        assertEquals(2, runs.get(), "the job ran again after the stall");
        resume.countDown(); // the first execution wakes up after its lock is gone
        awaitCondition("the first execution to end", () -> !firstRunEnd.isEmpty());
        assertTrue(firstRunEnd.get(0) instanceof LockLostException, "the late execution is fenced: " + firstRunEnd);

        JobRecord done = queue.getJob("in-flight").orElseThrow();
        assertEquals(JobState.COMPLETED, done.state());
        assertEquals(1, done.stalledCounter());
        assertEquals(1, events.of("completed", "in-flight").size(), "completed exactly once");
        assertTrue(events.of("failed", "in-flight").isEmpty());

        queue.add("after", "x", JobOptions.defaults());
        awaitEvents("completed", "after", 1);
    }

    private void startWorker(WorkerOptions options, JobProcessor processor) {
        worker = new Worker(redis, prefix, "jobs", options, processor, executor);
        worker.addListener(events);
        worker.start();
    }

    private CountDownLatch gate() {
        CountDownLatch gate = new CountDownLatch(1);
        gates.add(gate);
        return gate;
    }

    private static void pass(CountDownLatch gate) throws InterruptedException {
        if (!gate.await(MAX_WAIT_MS, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("test gate never opened");
        }
    }

    private static void await(CountDownLatch latch, String what) throws InterruptedException {
        assertTrue(latch.await(MAX_WAIT_MS, TimeUnit.MILLISECONDS), "timed out waiting for " + what);
    }

    private void awaitEvents(String type, String jobId, int n) {
        awaitCondition(n + " '" + type + "' of " + jobId, () -> events.of(type, jobId).size() >= n);
    }

    private static void awaitCondition(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAX_WAIT_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting for " + what);
            }
            try {
                Thread.sleep(20); // bounded poll interval, not used for ordering
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted waiting for " + what);
            }
        }
    }
}
