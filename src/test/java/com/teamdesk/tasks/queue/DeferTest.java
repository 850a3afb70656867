package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/**
 * Issue 28: an execution deferred with {@link JobDeferredException} is not an attempt (attemptsMade unchanged,
 * no failed event, the job runs again after the delay), and a closed {@link FetchGate} keeps the worker from
 * fetching while jobs wait.
 */
class DeferTest extends QueueFixture {

    @Test
    void aDeferredExecutionIsNotAnAttemptAndRunsAgainAfterItsDelay() {
        List<Integer> attemptsSeen = new CopyOnWriteArrayList<>();
        AtomicInteger runs = new AtomicInteger();
        queue.add("outage", "x", JobOptions.defaults().withAttempts(3).withBackoff(Backoff.exponential(20)));
        Worker w = worker(FAST, job -> {
            attemptsSeen.add(job.attemptsMade());
            if (runs.incrementAndGet() <= 5) {
                throw new JobDeferredException("database unreachable", 20, new IllegalStateException("refused"));
            }
        });
        w.start();

        events.await("completed", "outage", 1);
        assertTrue(w.close(Duration.ofSeconds(5)));

        assertEquals(List.of(0, 0, 0, 0, 0, 0), attemptsSeen, "five deferrals used none of the three attempts");
        assertEquals(5, events.of("deferred", "outage").size());
        assertEquals(0, events.of("failed", "outage").size(), "a deferral is never a failure");
        JobRecord job = job("outage");
        assertEquals(JobState.COMPLETED, job.state());
        assertEquals(1, job.attemptsMade(), "only the completing execution counts");
    }

    @Test
    void aDeferralWaitsItsDelayInDelayed() {
        queue.add("later", "x", JobOptions.defaults());
        CountDownLatch deferred = new CountDownLatch(1);
        Worker w = worker(FAST, job -> {
            deferred.countDown();
            throw new JobDeferredException("database unreachable", 60_000, null);
        });
        w.start();
        events.await("deferred", "later", 1);
        assertEquals(JobState.DELAYED, job("later").state());
        assertEquals(0, job("later").attemptsMade());
        assertTrue(w.close(Duration.ofSeconds(5)));
        assertEquals(1L, queue.counts().get(JobState.DELAYED));
    }

    @Test
    void aClosedFetchGateKeepsJobsWaitingUntilItOpens() throws InterruptedException {
        CountDownLatch opened = new CountDownLatch(1);
        CountDownLatch asked = new CountDownLatch(3);
        Worker w = worker(FAST, job -> { });
        w.setFetchGate(maxWaitMs -> {
            asked.countDown();
            try {
                // the gate's own bounded wait, as a breaker's is; short, so that the loop asks again soon
                return opened.await(Math.min(maxWaitMs, 20), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        queue.add("gated", "x", JobOptions.defaults());
        w.start();
        assertTrue(asked.await(10, TimeUnit.SECONDS), "the fetch loop asks the gate");
        assertEquals(JobState.WAITING, job("gated").state(), "nothing fetched while the gate is closed");
        assertTrue(events.of("completed", "gated").isEmpty());

        opened.countDown();
        events.await("completed", "gated", 1);
        assertTrue(w.close(Duration.ofSeconds(5)));
    }
}
