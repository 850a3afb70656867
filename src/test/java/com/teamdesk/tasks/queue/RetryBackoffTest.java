package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** R4 attempts and exponential backoff; UnrecoverableJobException; what a processor sees. */
class RetryBackoffTest extends QueueFixture {

    @Test
    void aFailingJobRunsThreeTimesWithDoublingBackoffThenFailsExhausted() {
        List<Integer> attemptsSeen = new CopyOnWriteArrayList<>();
        List<Long> startedAt = new CopyOnWriteArrayList<>();
        queue.add("flaky", "x", JobOptions.defaults().withBackoff(Backoff.exponential(200)));
        Worker w = worker(FAST, job -> {
            startedAt.add(System.nanoTime());
            attemptsSeen.add(job.attemptsMade());
            throw new IllegalStateException("boom on attempt " + (job.attemptsMade() + 1));
        });
        w.start();

        List<Events.Event> failures = events.await("failed", "flaky", 3);
        assertTrue(w.close(Duration.ofSeconds(5)));

        assertEquals(List.of(0, 1, 2), attemptsSeen, "attemptsMade before each execution; no 4th execution");
        assertEquals(List.of(1, 2, 3), failures.stream().map(Events.Event::attemptsMade).toList());
        assertEquals(List.of(false, false, true), failures.stream().map(Events.Event::exhausted).toList());
        assertEquals("boom on attempt 3", failures.get(2).reason());

        double firstGap = startedAt.get(1) - startedAt.get(0);
        double secondGap = startedAt.get(2) - startedAt.get(1);
        double ratio = secondGap / firstGap;
        assertTrue(ratio >= 1.5 && ratio <= 3.0, "second retry waits about twice the first; ratio " + ratio);
        assertTrue(firstGap >= 150e6, "first retry waits about the 200 ms base; was " + firstGap / 1e6 + " ms");

        JobRecord job = job("flaky");
        assertEquals(JobState.FAILED, job.state());
        assertTrue(job.exhausted());
        assertEquals(3, job.attemptsMade());
        assertEquals(3, job.attemptsStarted());
        assertEquals("boom on attempt 3", job.failedReason());
        assertNotNull(job.finishedAt());
        assertEquals(1L, queue.counts().get(JobState.FAILED));
        assertEquals(0L, queue.counts().get(JobState.DELAYED) + queue.counts().get(JobState.WAITING));
    }

    @Test
    void aTransientErrorIsRetriedAndTheJobCompletes() {
        queue.add("t", "x", JobOptions.defaults().withBackoff(Backoff.exponential(20)));
        Worker w = worker(FAST, job -> {
            if (job.attemptsMade() < 2) {
                throw new RuntimeException("transient");
            }
        });
        w.start();
        Events.Event completed = events.awaitNth("completed", "t", 1);
        assertEquals(3, completed.attemptsMade(), "two failed executions and the completing one");
        JobRecord job = job("t");
        assertEquals(JobState.COMPLETED, job.state());
        assertEquals(3, job.attemptsMade(), "like BullMQ 5+: the completing execution counts too");
        assertEquals(3, job.attemptsStarted());
        assertFalse(job.exhausted());
        assertEquals(2, events.of("failed", "t").size());
    }

    @Test
    void anUnrecoverableErrorFailsAtOnceWithoutRetry() {
        AtomicInteger executions = new AtomicInteger();
        queue.add("u", "x", JobOptions.defaults().withBackoff(Backoff.exponential(1)));
        Worker w = worker(FAST, job -> {
            executions.incrementAndGet();
            throw new UnrecoverableJobException("not allowed");
        });
        w.start();
        Events.Event failed = events.awaitNth("failed", "u", 1);
        assertTrue(w.close(Duration.ofSeconds(5)));

        assertTrue(failed.exhausted());
        assertEquals(1, failed.attemptsMade());
        assertEquals("not allowed", failed.reason());
        assertEquals(1, executions.get());
        JobRecord job = job("u");
        assertEquals(JobState.FAILED, job.state());
        assertTrue(job.exhausted());
        assertEquals(1, job.attemptsMade());
        assertEquals("not allowed", job.failedReason());
    }

    @Test
    void theFailedReasonIsTheMessageNeverAStackTrace() {
        queue.add("m", "x", JobOptions.defaults().withAttempts(1));
        queue.add("n", "x", JobOptions.defaults().withAttempts(1));
        Worker w = worker(FAST, job -> {
            if (job.id().equals("m")) {
                throw new IllegalArgumentException("bad input", new RuntimeException("cause"));
            }
            throw new NullPointerException();
        });
        w.start();
        assertEquals("bad input", events.awaitNth("failed", "m", 1).reason());
        assertEquals(NullPointerException.class.getName(), events.awaitNth("failed", "n", 1).reason());
        assertFalse(job("m").failedReason().contains("\tat "));
    }

    @Test
    void theProcessorSeesTheJobAndItsProgressIsRecorded() {
        queue.add("p", "{\"n\":1}", JobOptions.defaults());
        List<String> seen = new CopyOnWriteArrayList<>();
        Worker w = worker(FAST, job -> {
            seen.add(job.id() + " " + job.data() + " " + job.attemptsMade() + " " + job.attemptsStarted());
            job.updateProgress(40);
            job.updateProgress(100);
        });
        w.start();
        events.awaitNth("completed", "p", 1);
        assertEquals(List.of("p {\"n\":1} 0 1"), seen);
        assertEquals(List.of(40, 100), events.of("progress", "p").stream().map(Events.Event::percent).toList());
        assertEquals(100, job("p").progress());
        assertNotNull(job("p").processedAt());
        assertNotNull(job("p").finishedAt());
    }

    @Test
    void aDelayedJobIsNotRunBeforeItIsDue() {
        queue.add("later", "x", JobOptions.defaults().withDelayMs(300));
        long added = System.nanoTime();
        List<Long> ranAt = new CopyOnWriteArrayList<>();
        Worker w = worker(FAST, job -> ranAt.add(System.nanoTime()));
        w.start();
        events.awaitNth("completed", "later", 1);
        assertTrue(ranAt.get(0) - added >= 250e6, "ran after " + (ranAt.get(0) - added) / 1e6 + " ms");
    }

    @Test
    void backoffIsExponentialFromItsBase() {
        Backoff b = Backoff.exponential(2000);
        assertEquals(2000, b.delayMs(1));
        assertEquals(4000, b.delayMs(2));
        assertEquals(8000, b.delayMs(3));
        assertEquals(Long.MAX_VALUE, b.delayMs(80));
        Backoff jittered = new Backoff(1000, true);
        for (int i = 0; i < 100; i++) {
            long d = jittered.delayMs(2);
            assertTrue(d >= 1000 && d <= 2000, "jitter keeps [d/2, d]: " + d);
        }
    }

    @Test
    void defaultsMatchTheSpec() {
        JobOptions o = JobOptions.defaults();
        assertEquals(3, o.attempts());
        assertEquals(Backoff.exponential(2000), o.backoff());
        assertEquals(0, o.delayMs());
        assertEquals(new Retention(86_400, 1000), o.removeOnComplete());
        assertEquals(new Retention(604_800, 1000), o.removeOnFail());
        assertEquals(new WorkerOptions(1, 30_000, 15_000, 30_000, 1, 60_000, 15_000), WorkerOptions.defaults());
        assertEquals(20, WorkerOptions.defaults().withConcurrency(16).requiredThreads());
    }
}
