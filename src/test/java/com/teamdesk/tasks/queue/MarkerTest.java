package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The wake-up marker (docs/queue.md, "The marker"): only BZPOPMIN consumes it, and the fetch loop that consumed
 * it calls moveToActive next, which sets it again while jobs wait. So an add to a non-empty wait list and the
 * fetch-next of a finishing slot need not touch it (issue 16), and still no waiting job is left without a
 * marker or a fetch on its way. Driven step by step on the store, as a fetch loop would, because a worker's
 * 5 s longest block would hide a missing wake-up from any bounded wait.
 */
class MarkerTest extends QueueFixture {

    @Test
    void whileJobsWaitTheMarkerIsSetOrItsConsumerIsAboutToFetch() {
        QueueStore store = new QueueStore(redis, queue.keys());
        JobOptions options = JobOptions.defaults();

        queue.add("a", "x", options);
        assertTrue(markerSet(), "an add to an empty wait list sets the marker");

        consumeMarker(); // a blocked fetch loop wakes up ...
        queue.add("b", "x", options);
        assertFalse(markerSet(), "an add behind a waiting job leaves the marker to the fetch on its way");
        FetchedJob a = store.moveToActive("t1", 60_000).job(); // ... and fetches
        assertEquals("a", a.id());
        assertTrue(markerSet(), "the fetch sets the marker again: b still waits");

        consumeMarker(); // another fetch loop wakes up; meanwhile a's slot finishes and fetches b
        FetchedJob b = store.complete(a, "t2", 60_000).next();
        assertEquals("b", b.id());
        assertFalse(markerSet(), "the fetch-next does not set it");
        assertEquals(-1, store.moveToActive("t3", 60_000).nextDueInMs(), "the woken loop finds nothing");

        queue.add("c", "x", options);
        queue.add("d", "x", options);
        consumeMarker(); // a fetch loop wakes up for c and d; b's slot fetches c first
        assertEquals("c", store.complete(b, "t4", 60_000).next().id());
        assertEquals("d", store.moveToActive("t5", 60_000).job().id(), "the woken loop takes d");
        assertFalse(markerSet(), "nothing waits, no marker");
    }

    private boolean markerSet() {
        return redis.zcard(queue.keys().marker()) == 1;
    }

    /** What a fetch loop's BZPOPMIN does when it returns with the marker. */
    private void consumeMarker() {
        assertEquals(1, redis.zpopmin(queue.keys().marker(), 1).size(), "a marker to consume");
    }
}
