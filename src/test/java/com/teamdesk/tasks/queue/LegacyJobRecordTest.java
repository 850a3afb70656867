package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

/**
 * Issue 16 moved a job's fixed options (attempts, backoff, retention) into one record field, {@code opts}.
 * Records written by the previous version (options as fields of their own, no {@code opts}) are still in
 * Redis after an upgrade and must be processed with their own options; records written now keep the fields
 * a worker of the previous version reads, for a rolling upgrade (docs/decisions.md).
 */
class LegacyJobRecordTest extends QueueFixture {

    /** A waiting record exactly as the previous add.lua wrote it (its field order, no opts). */
    private void addOldShaped(String id, int maxAttempts, int completedMaxCount, int failedMaxCount) {
        QueueKeys keys = queue.keys();
        Map<String, String> h = new LinkedHashMap<>();
        h.put("data", "legacy " + id);
        h.put("state", "waiting");
        h.put("maxAttempts", Integer.toString(maxAttempts));
        h.put("backoffMs", "10");
        h.put("backoffJitter", "0");
        h.put("completedMaxAgeSec", "86400");
        h.put("completedMaxCount", Integer.toString(completedMaxCount));
        h.put("failedMaxAgeSec", "604800");
        h.put("failedMaxCount", Integer.toString(failedMaxCount));
        h.put("attemptsMade", "0");
        h.put("attemptsStarted", "0");
        h.put("stalledCounter", "0");
        h.put("progress", "0");
        h.put("addedAt", Long.toString(System.currentTimeMillis()));
        redis.hset(keys.job(id), h);
        redis.rpush(keys.waiting(), id);
        redis.zadd(keys.marker(), 0, "0");
    }

    @Test
    void oldShapedRecordsRunWithTheirOwnAttemptsBackoffAndRetention() {
        addOldShaped("retried", 2, 1, 7);
        addOldShaped("done", 2, 1, 7);
        addOldShaped("exhausted", 2, 1, 7);
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        Worker w = worker(FAST, job -> {
            seen.add(job.id() + " " + job.data() + " " + job.attemptsMade());
            if (job.id().equals("exhausted") || (job.id().equals("retried") && job.attemptsMade() == 0)) {
                throw new IllegalStateException("boom");
            }
        });
        w.start();

        Events.Event retry = events.awaitNth("failed", "retried", 1);
        assertFalse(retry.exhausted(), "maxAttempts 2 read from the old record: a retry is left");
        Events.Event last = events.awaitNth("failed", "exhausted", 2);
        assertTrue(last.exhausted(), "out of its 2 attempts");
        assertEquals(2, last.attemptsMade());
        assertEquals(1, events.of("failed", "exhausted").stream().filter(Events.Event::exhausted).count());
        events.awaitNth("completed", "done", 1);
        assertEquals(2, events.awaitNth("completed", "retried", 1).attemptsMade());
        assertTrue(seen.contains("retried legacy retried 1"), seen.toString());

        // their completed retention (the newest 1) was applied when the later of the two completed
        assertEquals(1L, queue.counts().get(JobState.COMPLETED));
        assertTrue(queue.getJob("done").isPresent() ^ queue.getJob("retried").isPresent(),
                "one of the two trimmed by the old records' completedMaxCount 1");
        JobRecord exhausted = job("exhausted");
        assertEquals(JobState.FAILED, exhausted.state());
        assertEquals(2, exhausted.maxAttempts());
        assertEquals(2, exhausted.attemptsMade());
        assertEquals(2, exhausted.attemptsStarted());
        // their failed retention was recorded for the periodic trim
        assertEquals("7", redis.hget(queue.keys().meta(), "failedMaxCount"));
    }

    @Test
    void anOldShapedRecordThatStallsTooOftenFailsWithItsOwnFailedRetention() {
        addOldShaped("stuck", 3, 1000, 5);
        CountDownLatch holds = new CountDownLatch(1);
        CountDownLatch never = gate();
        Worker w = worker(FAST.withLockRenewal(false).withMaxStalledCount(0), job -> {
            holds.countDown();
            pass(never);
        });
        w.start();
        await(holds, "the execution");
        Events.Event failed = events.awaitNth("failed", "stuck", 1);
        assertTrue(failed.exhausted());
        assertEquals(Housekeeping.STALLED_REASON, failed.reason());
        JobRecord job = job("stuck");
        assertEquals(JobState.FAILED, job.state());
        assertEquals(3, job.maxAttempts());
        assertEquals(1L, queue.counts().get(JobState.FAILED));
        assertEquals("5", redis.hget(queue.keys().meta(), "failedMaxCount"), "read from the old record's fields");
        assertEquals("604800", redis.hget(queue.keys().meta(), "failedMaxAgeSec"));
    }

    @Test
    void aNewRecordHoldsItsOptionsInOneFieldAndTheFieldsThePreviousVersionReads() {
        JobOptions options = JobOptions.defaults().withAttempts(4).withBackoff(new Backoff(1500, true))
                .withRemoveOnComplete(new Retention(60, 10)).withRemoveOnFail(new Retention(120, 20));
        queue.add("new", "x", options);
        Map<String, String> h = redis.hgetAll(queue.keys().job("new"));
        assertEquals("4:1500:1:60:10:120:20", h.get("opts"));
        assertEquals("4", h.get("maxAttempts"));
        assertEquals("1500", h.get("backoffMs"));
        assertEquals("1", h.get("backoffJitter"));
        assertFalse(h.containsKey("completedMaxCount"), "the retention is read from opts only");
        assertEquals(4, job("new").maxAttempts());

        FetchedJob fetched = new QueueStore(redis, queue.keys()).moveToActive("t", 60_000).job();
        assertEquals(4, fetched.maxAttempts());
        assertEquals(new Backoff(1500, true), fetched.backoff());
        assertEquals(new Retention(60, 10), fetched.removeOnComplete());
        assertEquals(new Retention(120, 20), fetched.removeOnFail());
    }
}
