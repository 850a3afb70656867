package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** R22: graceful close, deadline, heartbeat. */
class WorkerCloseTest extends QueueFixture {

    @Test
    void closeLetsTheInFlightJobFinishKeepsItsLockAndTakesNoNewJob() throws Exception {
        queue.add("inflight", "x", JobOptions.defaults());
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = gate();
        Worker w = worker(FAST, job -> {
            if (job.id().equals("inflight")) {
                started.countDown();
                pass(finish);
            }
        });
        w.start();
        await(started, "the job to start");
        queue.add("next", "x", JobOptions.defaults());
        awaitCondition("the heartbeat", () -> queue.liveWorkers().contains(w.workerId()));

        Future<Boolean> closing = executor.submit(() -> w.close(Duration.ofMillis(MAX_WAIT_MS)));
        awaitCondition("close to begin", () -> !w.isRunning());
        String lock = queue.keys().lock("inflight");
        long[] lastTtl = {redis.pttl(lock)};
        awaitCondition("a lock renewal during close", () -> {
            long ttl = redis.pttl(lock);
            boolean renewed = ttl > lastTtl[0]; // a TTL only grows when renewed
            lastTtl[0] = ttl;
            return renewed;
        });
        assertFalse(closing.isDone());
        assertEquals(JobState.ACTIVE, job("inflight").state());

        finish.countDown();
        assertTrue(closing.get(MAX_WAIT_MS, TimeUnit.MILLISECONDS), "all in-flight jobs finished");
        assertEquals(JobState.COMPLETED, job("inflight").state());
        assertEquals(JobState.WAITING, job("next").state(), "no new job taken after close began");
        assertEquals(0, job("next").attemptsStarted());
        assertFalse(queue.liveWorkers().contains(w.workerId()), "heartbeat deleted");
        assertFalse(redis.exists(queue.keys().worker(w.workerId())));
        assertTrue(w.close(Duration.ZERO), "close is idempotent");
    }

    @Test
    void closeWithATooShortTimeoutReturnsFalseAndTheJobLaterStalls() {
        queue.add("cut", "x", JobOptions.defaults());
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = gate();
        Worker a = worker(FAST, job -> {
            started.countDown();
            pass(finish);
        });
        a.start();
        await(started, "the job to start");

        assertFalse(a.close(Duration.ofMillis(200)));
        assertFalse(a.isRunning());

        Worker b = worker(FAST, job -> { });
        b.start();
        events.awaitNth("stalled", "cut", 1);
        Events.Event completed = events.awaitNth("completed", "cut", 1);
        assertEquals(1, completed.attemptsMade());
        JobRecord done = job("cut");
        assertEquals(JobState.COMPLETED, done.state());
        assertEquals(2, done.attemptsStarted());

        finish.countDown();
        assertTrue(a.close(Duration.ofMillis(MAX_WAIT_MS)), "A's abandoned execution ended");
        assertEquals(done, job("cut"), "A's late completion was refused");
        assertEquals(1, events.of("completed", "cut").size());
    }

    @Test
    void liveWorkersListsOnlyWorkersWithALiveHeartbeat() {
        Worker w = worker(FAST, job -> { });
        w.start();
        awaitCondition("the heartbeat", () -> queue.liveWorkers().contains(w.workerId()));
        redis.sadd(queue.keys().workers(), "gone"); // registered, but its heartbeat key expired
        assertEquals(Set.of(w.workerId()), queue.liveWorkers());
        assertFalse(redis.sismember(queue.keys().workers(), "gone"), "dead ids are pruned");
        assertTrue(redis.pttl(queue.keys().worker(w.workerId())) <= FAST.heartbeatTtlMs());
        assertTrue(w.close(Duration.ofSeconds(5)));
        assertTrue(queue.liveWorkers().isEmpty());
    }

    @Test
    void aLockRenewalPeriodNotBelowTheLockDurationIsRefused() {
        WorkerOptions options = WorkerOptions.defaults().withLockDurationMs(1_000).withLockRenewMs(1_000);
        assertThrows(IllegalArgumentException.class,
                () -> new Worker(redis, prefix, queueName, options, job -> { }, executor));
    }

    @Test
    void aWorkerThatNeverStartedClosesAtOnce() {
        Worker w = worker(FAST, job -> { });
        long start = System.nanoTime();
        assertTrue(w.close(Duration.ofSeconds(5)));
        assertTrue(w.close(Duration.ofSeconds(5)));
        assertTrue(System.nanoTime() - start < 500_000_000L, "no waiting for loops that never ran");
        assertThrows(IllegalStateException.class, w::start);
    }

    @Test
    void aWorkerCanOnlyBeStartedOnce() {
        Worker w = worker(FAST, job -> { });
        w.start();
        assertThrows(IllegalStateException.class, w::start);
        assertTrue(w.close(Duration.ofSeconds(5)));
        assertThrows(IllegalStateException.class, w::start);
    }

    @Test
    void manyJobsAreProcessedConcurrently() {
        int jobs = 200;
        for (int i = 0; i < jobs; i++) {
            queue.add("j" + i, "x", JobOptions.defaults());
        }
        Worker a = worker(FAST.withConcurrency(8), job -> { });
        Worker b = worker(FAST.withConcurrency(8), job -> { });
        a.start();
        b.start();
        for (int i = 0; i < jobs; i++) {
            events.awaitNth("completed", "j" + i, 1);
        }
        assertEquals((long) jobs, queue.counts().get(JobState.COMPLETED));
        assertEquals(0L, queue.counts().get(JobState.ACTIVE) + queue.counts().get(JobState.WAITING));
        for (int i = 0; i < jobs; i++) {
            assertEquals(1, events.of("completed", "j" + i).size(), "each job completed once");
        }
    }
}
