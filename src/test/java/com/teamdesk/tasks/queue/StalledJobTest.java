package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

/** R6 with real workers: an expired lock makes the job stall; the old holder can no longer write. */
class StalledJobTest extends QueueFixture {

    @Test
    void anExpiredLockStallsTheJobAndAnotherWorkerTakesItOverWhileTheOldHolderCannotWrite() {
        queue.add("s", "x", JobOptions.defaults());
        CountDownLatch aHolds = new CountDownLatch(1);
        CountDownLatch aResume = gate();
        List<String> aLockLost = new CopyOnWriteArrayList<>();
        Worker a = worker(FAST.withLockRenewal(false), job -> {
            aHolds.countDown();
            pass(aResume);
            try {
                job.updateProgress(90);
            } catch (LockLostException e) {
                aLockLost.add(e.getMessage());
                throw e; // the late failure report is refused as well
            }
        });
        a.start();
        await(aHolds, "worker A to hold the job");

        events.awaitNth("stalled", "s", 1);
        JobRecord stalled = job("s");
        assertEquals(JobState.WAITING, stalled.state(), "back to waiting");
        assertEquals(1, stalled.stalledCounter());
        assertEquals(0, stalled.attemptsMade(), "a stalled execution is not a failed attempt");

        CountDownLatch bHolds = new CountDownLatch(1);
        CountDownLatch bFinish = gate();
        List<Integer> bSaw = new CopyOnWriteArrayList<>();
        Worker b = worker(FAST, job -> {
            bSaw.add(job.attemptsMade());
            bSaw.add(job.attemptsStarted());
            job.updateProgress(10);
            bHolds.countDown();
            pass(bFinish);
        });
        b.start();
        await(bHolds, "worker B to take the job over");
        JobRecord takenOver = job("s");
        assertEquals(JobState.ACTIVE, takenOver.state());

        aResume.countDown();
        assertTrue(a.close(Duration.ofMillis(MAX_WAIT_MS)), "A's execution ended");
        assertEquals(1, aLockLost.size(), "A's progress report raised LockLostException");
        assertEquals(takenOver, job("s"), "A changed nothing: no progress, no failure, same state");
        assertTrue(events.of("failed", "s").isEmpty());

        bFinish.countDown();
        Events.Event completed = events.awaitNth("completed", "s", 1);
        assertEquals(1, completed.attemptsMade(), "the stall is not an attempt made; the completion is");
        assertEquals(List.of(0, 2), bSaw);
        JobRecord done = job("s");
        assertEquals(JobState.COMPLETED, done.state());
        assertEquals(10, done.progress());
        assertEquals(1, done.stalledCounter());
        assertEquals(1, events.of("completed", "s").size());
    }

    @Test
    void aJobThatStallsMoreThanMaxStalledCountFailsForGood() {
        queue.add("s2", "x", JobOptions.defaults());
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch second = new CountDownLatch(1);
        CountDownLatch never = gate();
        Worker a = worker(FAST.withLockRenewal(false), job -> {
            first.countDown();
            pass(never);
        });
        a.start();
        await(first, "first execution");
        events.awaitNth("stalled", "s2", 1);
        assertEquals(JobState.WAITING, job("s2").state());

        Worker c = worker(FAST.withLockRenewal(false), job -> {
            second.countDown();
            pass(never);
        });
        c.start();
        await(second, "second execution");
        events.awaitNth("stalled", "s2", 2);
        Events.Event failed = events.awaitNth("failed", "s2", 1);
        assertTrue(failed.exhausted());
        assertEquals(Housekeeping.STALLED_REASON, failed.reason());

        JobRecord job = job("s2");
        assertEquals(JobState.FAILED, job.state());
        assertTrue(job.exhausted());
        assertEquals(2, job.stalledCounter());
        assertEquals(2, job.attemptsStarted());
        assertEquals("job stalled more than allowable limit", job.failedReason());
    }
}
