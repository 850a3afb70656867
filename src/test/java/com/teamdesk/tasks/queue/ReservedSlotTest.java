package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * Issue 30, R42: reserved slots. At the script level a reserved fetch takes only a job of priority {@code >= P}
 * (the first lane in rotation order whose next job qualifies, within its group's cap), leaves the marker alone,
 * sets the urgent marker again only when it took a job, and a job of priority {@code > 0} that starts waiting (add,
 * promotion, retry) sets the urgent marker. At the worker level: an urgent job runs while the general slots are
 * all held; the reserved loop does not spin while only lower jobs wait; with R = 0 nothing changes; and an urgent
 * job added while two workers' reserved loops block is taken at once, two of them by both.
 */
class ReservedSlotTest extends LaneFixture {

    private static final int P = 5;

    private FetchedJob urgentFetch() {
        FetchedJob job = store.moveUrgentToActive("u" + System.nanoTime(), 60_000, P).job();
        if (job != null) {
            fetched.put(job.id(), job);
        }
        return job;
    }

    private String urgentId() {
        FetchedJob job = urgentFetch();
        return job == null ? null : job.id();
    }

    private boolean urgentMarkerSet() {
        return redis.zcard(queue.keys().urgentMarker()) == 1;
    }

    private boolean markerSet() {
        return redis.zcard(queue.keys().marker()) == 1;
    }

    private void consumeMarkers() {
        redis.del(queue.keys().marker(), queue.keys().urgentMarker());
    }

    // ---- script level ----------------------------------------------------------------------------------

    @Test
    void aReservedFetchTakesTheFirstLaneWhoseNextJobIsUrgentAndSendsItToTheBack() {
        for (int i = 1; i <= 3; i++) {
            queue.add("a" + i, "x", in("team-a"));
        }
        queue.add("c1", "x", in("team-c").withPriority(3)); // above 0, below P
        queue.add("b1", "x", in("team-b").withPriority(P));
        queue.add("d1", "x", in("team-d").withPriority(7));
        assertTrue(urgentMarkerSet(), "an urgent add sets the urgent marker");
        consumeMarkers();
        assertEquals("b1", urgentId(), "B's lane is the first in rotation order whose head has priority >= P");
        assertTrue(urgentMarkerSet(), "a reserved fetch that took a job sets the urgent marker again");
        assertFalse(markerSet(), "and leaves the marker alone");
        assertEquals(List.of("team-a", "team-c", "team-d"), redis.lrange(queue.keys().lanes(), 0, -1),
                "B's lane emptied; the others keep their order");
        assertEquals("d1", urgentId());
        consumeMarkers();
        assertNull(urgentId(), "only lower jobs wait: no job");
        assertFalse(urgentMarkerSet(), "a reserved fetch that found nothing sets no urgent marker: its loop blocks");
        assertFalse(markerSet(), "nor the marker");
        assertEquals(List.of("a1", "c1", "a2", "a3"), fetchAll(), "the general fetch serves the rest in turn");
    }

    @Test
    void aMovedLaneGoesToTheBackOfTheRotationAfterItsJob() {
        queue.add("a1", "x", in("team-a"));
        queue.add("b1", "x", in("team-b").withPriority(P));
        queue.add("b2", "x", in("team-b"));
        queue.add("c1", "x", in("team-c"));
        assertEquals("b1", urgentId());
        assertEquals(List.of("team-a", "team-c", "team-b"), redis.lrange(queue.keys().lanes(), 0, -1));
        assertNull(urgentId(), "b2 is not urgent");
    }

    /** The scan is bounded (1 000 lanes): an urgent lane further back is seen once the rotation moved it forward. */
    @Test
    void aReservedFetchLooksAtTheFirstThousandLanesOfTheRotation() {
        List<NewJob> low = new java.util.ArrayList<>();
        for (int i = 1; i <= 1000; i++) {
            low.add(new NewJob("low" + i, "x", in("g" + i)));
        }
        queue.addBulk(low);
        queue.add("u", "x", in("team-u").withPriority(P));
        assertNull(urgentId(), "lane 1001 is beyond the scan");
        assertEquals("low1", fetchId(), "a general fetch serves the front lane, which empties");
        assertEquals("u", urgentId(), "now it is lane 1000");
    }

    @Test
    void capsHoldInReservedMode() {
        queue.setGroupCap("team-b", 1);
        queue.add("b1", "x", in("team-b").withPriority(P));
        queue.add("b2", "x", in("team-b").withPriority(P));
        assertEquals("b1", fetchId(), "a general slot takes B's only place");
        consumeMarkers();
        assertNull(urgentId(), "B is at its cap: its urgent job is not eligible");
        assertFalse(urgentMarkerSet());
        assertFalse(store.complete(fetched.get("b1"), null, 60_000).lockLost());
        assertEquals("b2", urgentId(), "its place is free again");
        assertNull(urgentId());
    }

    @Test
    void promotedRetriedAndUngroupedUrgentJobsSetTheUrgentMarker() {
        queue.add("late", "x", in("team-b").withPriority(P).withDelayMs(60_000));
        queue.add("plain", "x", JobOptions.defaults().withPriority(P));
        assertEquals("plain", urgentId(), "an ungrouped job records its priority and is eligible at its lane's head");
        consumeMarkers();
        redis.zadd(queue.keys().delayed(), 0, "late"); // due now
        assertEquals("late", urgentId(), "the reserved fetch promotes it and takes it");
        consumeMarkers();
        FetchedJob late = fetched.get("late");
        assertFalse(store.fail(late, "boom", false, 0, null, 60_000).lockLost());
        assertTrue(urgentMarkerSet(), "a retry back to its lane sets the urgent marker");
        assertEquals("late", urgentId());
        consumeMarkers();
        queue.add("low", "x", in("team-a").withDelayMs(60_000));
        redis.zadd(queue.keys().delayed(), 0, "low");
        assertNull(urgentId(), "a promoted low job is not taken");
        assertFalse(urgentMarkerSet(), "nor announced");
    }

    @Test
    void reservedSlotsMustLeaveAGeneralSlot() {
        assertThrows(IllegalArgumentException.class, () -> WorkerOptions.defaults().withReservedSlots(1, P));
        assertThrows(IllegalArgumentException.class,
                () -> WorkerOptions.defaults().withConcurrency(2).withReservedSlots(1, 0));
        WorkerOptions o = WorkerOptions.defaults().withConcurrency(3).withReservedSlots(1, P);
        assertEquals(3 + 5, o.requiredThreads(), "one more internal task: the reserved loop");
        assertEquals(3 + 4, WorkerOptions.defaults().withConcurrency(3).requiredThreads());
    }

    // ---- worker level ----------------------------------------------------------------------------------

    /**
     * Concurrency 3, R = 1, P = 5: A's three low jobs and B's urgent one. Two of A's run (the general slots), the
     * third waits, and B's runs and completes in the reserved slot. Then 200 low jobs pass through the general
     * slots while the reserved loop, with only low jobs waiting, makes almost no fetch: it blocks.
     */
    @Test
    void anUrgentJobRunsWhileTheGeneralSlotsAreHeldAndTheReservedLoopDoesNotSpin() {
        CountDownLatch held = new CountDownLatch(2);
        CountDownLatch release = gate();
        Worker w = worker(FAST.withConcurrency(3).withReservedSlots(1, P), job -> {
            if (job.id().startsWith("a")) {
                held.countDown();
                pass(release);
            }
        });
        for (int i = 1; i <= 3; i++) {
            queue.add("a" + i, "x", in("team-a"));
        }
        w.start();
        await(held, "two of A's jobs in the general slots");
        awaitCondition("the reserved loop's first fetch", () -> w.fetchCalls(true) >= 1);
        queue.add("b1", "x", in("team-b").withPriority(P));
        events.await("completed", "b1", 1);
        assertEquals(JobState.WAITING, job("a3").state(), "the third of A's waits for a general slot");
        assertEquals(JobState.ACTIVE, job("a1").state());
        assertEquals(JobState.ACTIVE, job("a2").state());

        long before = w.fetchCalls(true);
        for (int i = 1; i <= 200; i++) {
            queue.add("low" + i, "x", in("team-c"));
        }
        release.countDown();
        events.await("completed", "low200", 1);
        long during = w.fetchCalls(true) - before;
        // after b1: its freed slot's fetch (nothing) and one for the urgent marker b1's fetch set again; a 5 s
        // timed-out wait at most once more
        assertTrue(during <= 3, "the reserved loop made " + during + " fetches while 200 low jobs ran: it spins");
        assertEquals(1, events.of("completed", "low1").size());
    }

    /** R = 0: exactly as before, every slot takes any job and there is no reserved loop. */
    @Test
    void withoutReservedSlotsEverySlotTakesAnyJob() {
        CountDownLatch held = new CountDownLatch(3);
        CountDownLatch release = gate();
        Worker w = worker(FAST.withConcurrency(3), job -> {
            held.countDown();
            pass(release);
        });
        for (int i = 1; i <= 3; i++) {
            queue.add("a" + i, "x", in("team-a"));
        }
        w.start();
        await(held, "A's three jobs in the three slots");
        queue.add("b1", "x", in("team-b").withPriority(P));
        assertEquals(JobState.WAITING, job("b1").state(), "no slot is free for B");
        assertEquals(0, w.fetchCalls(true));
        release.countDown();
        events.await("completed", "b1", 1);
    }

    /**
     * Two workers, each with one general slot held by A and one reserved slot, their reserved loops blocked: two
     * urgent jobs added back to back run at once, one in each (the second worker is woken by the urgent marker
     * the first one's fetch set again), well before a blocked wait would time out by itself.
     */
    @Test
    void urgentJobsAddedWhileTwoReservedLoopsBlockAreTakenAtOnceByBoth() throws InterruptedException {
        CountDownLatch held = new CountDownLatch(2);
        CountDownLatch urgentRunning = new CountDownLatch(2);
        CountDownLatch release = gate();
        JobProcessor processor = job -> {
            if (job.id().startsWith("a")) {
                held.countDown();
            } else {
                urgentRunning.countDown();
            }
            pass(release);
        };
        WorkerOptions options = FAST.withConcurrency(2).withReservedSlots(1, P);
        Worker w1 = worker(options, processor);
        Worker w2 = worker(options, processor);
        queue.add("a1", "x", in("team-a"));
        queue.add("a2", "x", in("team-a"));
        w1.start();
        w2.start();
        await(held, "each worker's general slot held by A");
        awaitCondition("both reserved loops fetched once (and found nothing)",
                () -> w1.fetchCalls(true) >= 1 && w2.fetchCalls(true) >= 1);
        long start = System.nanoTime();
        queue.add("u1", "x", in("team-b").withPriority(P));
        queue.add("u2", "x", in("team-c").withPriority(P));
        assertTrue(urgentRunning.await(MAX_WAIT_MS, TimeUnit.MILLISECONDS), "both urgent jobs run");
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(ms < Worker.MAX_BLOCK_MS / 2, "taken by wake-ups, not by a timed-out wait: " + ms + " ms");
        assertEquals(JobState.ACTIVE, job("u1").state());
        assertEquals(JobState.ACTIVE, job("u2").state());
        release.countDown();
    }

    /**
     * No lost wake-up: two urgent jobs start waiting in one script, which sets the urgent marker once, while two
     * workers' reserved loops block. One loop wakes and takes a job; its fetch sets the marker again, which wakes
     * the other loop for the second job, long before its blocked wait would time out.
     */
    @Test
    void oneWakeUpForTwoUrgentJobsReachesBothWorkers() throws InterruptedException {
        CountDownLatch held = new CountDownLatch(2);
        CountDownLatch urgentRunning = new CountDownLatch(2);
        CountDownLatch release = gate();
        JobProcessor processor = job -> {
            if (job.id().startsWith("a")) {
                held.countDown();
            } else {
                urgentRunning.countDown();
            }
            pass(release);
        };
        WorkerOptions options = FAST.withConcurrency(2).withReservedSlots(1, P);
        Worker w1 = worker(options, processor);
        Worker w2 = worker(options, processor);
        queue.add("a1", "x", in("team-a"));
        queue.add("a2", "x", in("team-a"));
        w1.start();
        w2.start();
        await(held, "each worker's general slot held by A");
        awaitCondition("both reserved loops fetched once (and found nothing)",
                () -> w1.fetchCalls(true) >= 1 && w2.fetchCalls(true) >= 1);
        queue.add("u1", "x", in("team-b").withPriority(P).withDelayMs(60_000));
        queue.add("u2", "x", in("team-c").withPriority(P).withDelayMs(60_000));
        assertFalse(urgentMarkerSet(), "a delayed job is not waiting yet");
        redis.zadd(queue.keys().delayed(), java.util.Map.of("u1", 0.0, "u2", 0.0)); // both due now
        long start = System.nanoTime();
        // a fetch that takes nothing (no job of priority 10) but promotes both: one urgent marker for two jobs
        assertNull(store.moveUrgentToActive("probe", 60_000, 10).job());
        assertTrue(urgentRunning.await(MAX_WAIT_MS, TimeUnit.MILLISECONDS), "both urgent jobs run");
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(ms < Worker.MAX_BLOCK_MS / 2, "the second was taken by a wake-up, not a timed-out wait: " + ms + " ms");
        release.countDown();
    }
}
