package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/**
 * R22 after Redis lost the heartbeat (issue 10: FLUSHALL made {@code /health} DOWN on every instance for
 * seconds): the worker still judges itself live from its last successful beat, and a key found missing is
 * republished at once, long before the next periodic beat.
 */
class HeartbeatTest extends QueueFixture {

    /** Periodic beats every 10 s: longer than every bounded wait of this test. */
    private static final WorkerOptions SLOW_BEAT = FAST.withHeartbeatTtlMs(30_000);

    @Test
    void aLostHeartbeatKeyIsRepublishedAtOnceAndTheWorkerStaysLive() {
        Worker w = worker(SLOW_BEAT, job -> { });
        assertFalse(w.isLive(), "not started");
        w.start();
        String key = queue.keys().worker(w.workerId());
        awaitCondition("the first heartbeat", () -> redis.exists(key) && w.isLive());

        redis.del(key, queue.keys().workers()); // what FLUSHALL does to this worker's keys
        assertFalse(queue.liveWorkers().contains(w.workerId()));
        assertTrue(w.isLive(), "liveness comes from the worker's own last beat, not from the lost key");

        assertFalse(w.heartbeatPublished(), "the key is missing");
        awaitCondition("the heartbeat to be republished", () -> queue.liveWorkers().contains(w.workerId()));
        assertTrue(redis.pttl(key) > SLOW_BEAT.heartbeatTtlMs() - MAX_WAIT_MS, "a fresh TTL");
        assertTrue(w.heartbeatPublished());
        assertTrue(w.isLive());

        assertTrue(w.close(Duration.ofMillis(MAX_WAIT_MS)));
        assertFalse(w.isLive(), "a closed worker is not live");
        assertFalse(redis.exists(key), "close deletes the heartbeat");
    }
}
