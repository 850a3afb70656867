package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** R5: finished records are kept by age and count, also while idle; unfinished jobs are never touched. */
class RetentionTest extends QueueFixture {

    private static final long DAY_MS = TimeUnit.DAYS.toMillis(1);

    @Test
    void onlyTheNewestMaxCountRecordsAreKept() {
        JobOptions options = JobOptions.defaults().withAttempts(1)
                .withRemoveOnComplete(new Retention(86_400, 3)).withRemoveOnFail(new Retention(604_800, 2));
        for (int i = 0; i < 5; i++) {
            queue.add("ok-" + i, "x", options);
            queue.add("bad-" + i, "x", options);
        }
        Worker w = worker(FAST, job -> {
            if (job.id().startsWith("bad")) {
                throw new IllegalStateException("bad");
            }
        });
        w.start();
        events.awaitNth("completed", "ok-4", 1);
        events.awaitNth("failed", "bad-4", 1);

        assertEquals(3L, queue.counts().get(JobState.COMPLETED));
        assertEquals(2L, queue.counts().get(JobState.FAILED));
        for (int i = 0; i < 5; i++) {
            assertEquals(i >= 2, queue.getJob("ok-" + i).isPresent(), "ok-" + i);
            assertEquals(i >= 3, queue.getJob("bad-" + i).isPresent(), "bad-" + i);
        }
    }

    @Test
    void recordsOlderThanMaxAgeAreRemovedButNeverWaitingActiveOrDelayedJobs() {
        JobOptions options = JobOptions.defaults().withAttempts(1);
        for (String id : new String[] {"old-ok", "new-ok", "old-bad", "new-bad"}) {
            queue.add(id, "x", options);
        }
        Worker w = worker(FAST, job -> {
            if (job.id().endsWith("bad")) {
                throw new IllegalStateException("bad");
            }
        });
        w.start();
        events.awaitNth("failed", "new-bad", 1);
        assertTrue(w.close(Duration.ofSeconds(5)));

        QueueStore store = new QueueStore(redis, queue.keys());
        queue.add("active", "x", options);
        assertEquals("active", store.moveToActive("token", 60_000).job().id());
        queue.add("waiting", "x", options);
        queue.add("delayed", "x", options.withDelayMs(60_000));

        finishedAgo(queue.keys().completed(), "old-ok", 2 * DAY_MS); // completed: kept 86400 s
        finishedAgo(queue.keys().failed(), "new-bad", 2 * DAY_MS); // failed: kept 604800 s
        finishedAgo(queue.keys().failed(), "old-bad", 8 * DAY_MS);
        assertEquals(2, queue.trimRetention());
        assertTrue(queue.getJob("old-ok").isEmpty());
        assertTrue(queue.getJob("old-bad").isEmpty());
        assertTrue(queue.getJob("new-ok").isPresent());
        assertTrue(queue.getJob("new-bad").isPresent());
        assertEquals(0, queue.trimRetention());

        // a job finishing with "keep none" makes retention remove every finished record...
        queue.add("keep-none", "x", options.withRemoveOnComplete(new Retention(0, 0)));
        FetchedJob waiting = store.moveToActive("t2", 60_000).job(); // "waiting" is first in line
        FetchedJob keepNone = store.complete(waiting, "t3", 60_000).next();
        assertEquals("keep-none", keepNone.id());
        assertTrue(queue.getJob("keep-none").isPresent());
        store.complete(keepNone, null, 60_000);
        assertEquals(0L, queue.counts().get(JobState.COMPLETED));
        assertTrue(queue.getJob("new-ok").isEmpty());
        // ...but waiting, active and delayed jobs are never touched
        queue.trimRetention();
        assertEquals(JobState.ACTIVE, job("active").state());
        assertEquals(JobState.DELAYED, job("delayed").state());
        queue.add("still-waiting", "x", options);
        queue.trimRetention();
        assertEquals(JobState.WAITING, job("still-waiting").state());
    }

    @Test
    void retentionIsEnforcedWhileTheQueueIsIdle() {
        queue.add("done", "x", JobOptions.defaults());
        queue.add("later", "x", JobOptions.defaults().withDelayMs(60_000));
        Worker w = worker(FAST, job -> { });
        w.start();
        events.awaitNth("completed", "done", 1);

        finishedAgo(queue.keys().completed(), "done", 2 * DAY_MS); // no job finishes after this
        awaitCondition("the periodic trim to remove the expired record", () -> queue.getJob("done").isEmpty());
        assertEquals(0L, queue.counts().get(JobState.COMPLETED));
        assertEquals(JobState.DELAYED, job("later").state());
    }

    /**
     * Pretends a finished job finished {@code agoMs} ago (the retention clock is the finish-time score), in
     * one script so that a running worker's trim sees either the old or the new finish time.
     */
    private void finishedAgo(String setKey, String jobId, long agoMs) {
        Object moved = redis.eval("""
                if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
                  return 0
                end
                local t = redis.call('TIME')
                local finishedAt = t[1] * 1000 - tonumber(ARGV[2])
                redis.call('ZADD', KEYS[1], finishedAt, ARGV[1])
                redis.call('HSET', KEYS[2], 'finishedAt', finishedAt)
                return 1
                """, List.of(setKey, queue.keys().job(jobId)), List.of(jobId, Long.toString(agoMs)));
        assertEquals(1L, moved, "job must already be in " + setKey);
    }
}
