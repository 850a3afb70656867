package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * R5/R6: a lone worker runs the retention trim and the stalled check once per interval, not every second
 * interval (issue 10: the guard key outlived the interval by the few ms between the loop's clock reading and
 * the script, so the worker's own next attempt found it alive and skipped).
 *
 * <p>A run is observed as its guard key being (re)set in Redis: the key appears or its remaining TTL jumps
 * up. The poll is bounded; the assertion is on the gaps between observed runs, which must stay well below
 * two intervals.
 */
class HousekeepingScheduleTest extends QueueFixture {

    private static final long INTERVAL_MS = 500;
    private static final int GAPS = 4;

    @Test
    void theRetentionTrimRunsOncePerInterval() {
        Worker w = worker(WorkerOptions.defaults().withRetentionTrimIntervalMs(INTERVAL_MS)
                .withStalledIntervalMs(60_000), job -> { });
        w.start();
        assertRunsOncePerInterval(queue.keys().retentionCheck());
    }

    @Test
    void theStalledCheckRunsOncePerInterval() {
        Worker w = worker(WorkerOptions.defaults().withStalledIntervalMs(INTERVAL_MS)
                .withRetentionTrimIntervalMs(60_000), job -> { });
        w.start();
        assertRunsOncePerInterval(queue.keys().stalledCheck());
    }

    /** Observes {@value #GAPS} + 1 consecutive settings of the guard key and checks the gaps between them. */
    private void assertRunsOncePerInterval(String guardKey) {
        List<Long> runs = new ArrayList<>();
        long previousTtl = -2;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAX_WAIT_MS);
        while (runs.size() <= GAPS) {
            long ttl = redis.pttl(guardKey); // -2: no key
            if (ttl >= 0 && (previousTtl < 0 || ttl > previousTtl)) {
                runs.add(System.nanoTime());
            }
            previousTtl = ttl;
            if (System.nanoTime() - deadline > 0) {
                fail("saw only " + runs.size() + " runs (guard " + guardKey + ") within " + MAX_WAIT_MS + " ms");
            }
            try {
                Thread.sleep(5); // bounded poll interval, not used for ordering
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
        List<Long> gapsMs = new ArrayList<>();
        for (int i = 1; i < runs.size(); i++) {
            gapsMs.add(TimeUnit.NANOSECONDS.toMillis(runs.get(i) - runs.get(i - 1)));
        }
        for (long gap : gapsMs) {
            assertTrue(gap < INTERVAL_MS * 3 / 2, "gaps between runs " + gapsMs + " ms, interval " + INTERVAL_MS + " ms");
        }
    }
}
