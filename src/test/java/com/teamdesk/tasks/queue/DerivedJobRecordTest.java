package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import redis.clients.jedis.params.SetParams;

/**
 * Issue 16, wave 4: a fetch writes only the job's lock (value {@code token@fetchTime}), not its record. What the
 * fetch used to write is derived wherever it is read: ACTIVE from the active set, the execution's start from the
 * lock (and, once it finished, from processedAt written by complete/fail), attemptsStarted = attemptsMade +
 * stalledCounter (+ 1 while active); a completed job's finishedAt is its score in the completed set. Records
 * fetched by the previous version (state=active, processedAt and attemptsStarted written, a bare token) read as
 * before, and a job this version fetched is still refused by {@code remove} (what the previous version's cancel
 * relies on when its reader sees the record's state, waiting).
 */
class DerivedJobRecordTest extends QueueFixture {

    private QueueStore store;

    @BeforeEach
    void store() {
        store = new QueueStore(redis, queue.keys());
    }

    @Test
    void theWorkerFetchesWithoutWritingTheRecordAndTheRecordReadsActiveThenCompleted() throws Exception {
        queue.add("j", "x", JobOptions.defaults());
        Map<String, String> added = redis.hgetAll(queue.keys().job("j"));
        AtomicReference<JobRecord> whileRunning = new AtomicReference<>();
        AtomicReference<Map<String, String>> rawWhileRunning = new AtomicReference<>();
        AtomicReference<String> lockWhileRunning = new AtomicReference<>();
        CountDownLatch seen = new CountDownLatch(1);
        Worker w = worker(FAST, job -> {
            whileRunning.set(job("j"));
            rawWhileRunning.set(redis.hgetAll(queue.keys().job("j")));
            lockWhileRunning.set(redis.get(queue.keys().lock("j")));
            seen.countDown();
        });
        w.start();
        await(seen, "the execution");
        events.awaitNth("completed", "j", 1);

        assertEquals(added, rawWhileRunning.get(), "the fetch wrote nothing to the record");
        JobRecord running = whileRunning.get();
        assertEquals(JobState.ACTIVE, running.state(), "told by the active set");
        assertEquals(1, running.attemptsStarted());
        assertEquals(0, running.attemptsMade());
        String at = QueueStore.lockedAt(lockWhileRunning.get());
        assertNotNull(at, "the lock value carries the fetch time: " + lockWhileRunning.get());
        assertEquals(Instant.ofEpochMilli(Long.parseLong(at)), running.processedAt(), "the start, from the lock");
        assertFalse(running.processedAt().isBefore(running.addedAt()));

        JobRecord done = job("j");
        assertEquals(JobState.COMPLETED, done.state());
        assertEquals(1, done.attemptsMade());
        assertEquals(1, done.attemptsStarted());
        assertEquals(running.processedAt(), done.processedAt(), "recorded by the completion from the lock value");
        Double score = redis.zscore(queue.keys().completed(), "j");
        assertNotNull(score);
        assertEquals(Instant.ofEpochMilli(score.longValue()), done.finishedAt(), "the completed set's score");
        assertFalse(done.finishedAt().isBefore(done.processedAt()));
        assertNull(redis.hget(queue.keys().job("j"), "finishedAt"), "not written to the record");
    }

    @Test
    void attemptsStartedCountsFailedStalledAndRunningExecutions() {
        queue.add("j", "x", JobOptions.defaults().withAttempts(5));
        FetchedJob first = store.moveToActive("t1", 60_000).job();
        assertEquals(1, first.attemptsStarted());
        assertFalse(store.fail(first, "boom", false, 0, null, 60_000).lockLost());
        JobRecord failedOnce = job("j");
        assertEquals(JobState.WAITING, failedOnce.state());
        assertEquals(1, failedOnce.attemptsStarted());
        assertEquals(Instant.ofEpochMilli(Long.parseLong(QueueStore.lockedAt(first.token()))), failedOnce.processedAt(),
                "the failed execution's start, written by fail");

        FetchedJob second = store.moveToActive("t2", 60_000).job();
        assertEquals(2, second.attemptsStarted());
        assertEquals(2, job("j").attemptsStarted());
        redis.del(queue.keys().lock("j")); // its worker died
        assertEquals(List.of(new QueueStore.Stalled("j", false, 1)), store.moveStalledJobs(1, 60_000, "stalled"));
        JobRecord stalled = job("j");
        assertEquals(JobState.WAITING, stalled.state());
        assertEquals(1, stalled.stalledCounter());
        assertEquals(2, stalled.attemptsStarted(), "the stalled execution still counts as started");

        FetchedJob third = store.moveToActive("t3", 60_000).job();
        assertEquals(3, third.attemptsStarted());
        assertFalse(store.complete(third, null, 60_000).lockLost());
        JobRecord done = job("j");
        assertEquals(JobState.COMPLETED, done.state());
        assertEquals(2, done.attemptsMade());
        assertEquals(3, done.attemptsStarted());
        assertEquals(Instant.ofEpochMilli(Long.parseLong(QueueStore.lockedAt(third.token()))), done.processedAt());
    }

    @Test
    void aJobFetchedByThePreviousVersionReadsAsBeforeAndIsFinishedByThisOne() {
        queue.add("old", "x", JobOptions.defaults());
        // what the previous version's fetch left: popped, active, a bare token, the record written
        QueueKeys keys = queue.keys();
        assertEquals("old", redis.lpop(keys.waiting()));
        redis.sadd(keys.active(), "old");
        redis.set(keys.lock("old"), "previous-worker:1", SetParams.setParams().px(60_000));
        redis.hset(keys.job("old"), Map.of("state", "active", "processedAt", "1700000000000", "attemptsStarted", "1"));

        JobRecord active = job("old");
        assertEquals(JobState.ACTIVE, active.state());
        assertEquals(Instant.ofEpochMilli(1_700_000_000_000L), active.processedAt(), "a bare token: the record's");
        assertEquals(1, active.attemptsStarted());
        assertNull(QueueStore.lockedAt("previous-worker:1"));

        // its worker dies; this version's stalled check and worker take it over
        redis.del(keys.lock("old"));
        assertEquals(List.of(new QueueStore.Stalled("old", false, 0)), store.moveStalledJobs(1, 60_000, "stalled"));
        assertEquals(JobState.WAITING, job("old").state());
        assertEquals(1, job("old").attemptsStarted());
        FetchedJob again = store.moveToActive("new-worker:1", 60_000).job();
        assertEquals(2, again.attemptsStarted(), "the stalled start of the previous version counts");
        assertEquals(JobState.ACTIVE, job("old").state());
        assertEquals("waiting", redis.hget(keys.job("old"), "state"), "the stalled check's write, not the fetch's");
        assertFalse(store.complete(again, null, 60_000).lockLost());
        JobRecord done = job("old");
        assertEquals(JobState.COMPLETED, done.state());
        assertEquals(Instant.ofEpochMilli(Long.parseLong(QueueStore.lockedAt(again.token()))), done.processedAt());
        assertEquals(2, done.attemptsStarted());
    }

    @Test
    void aJobThisVersionFetchedCannotBeRemovedEvenWhereItsRecordStillSaysWaiting() {
        queue.add("j", "x", JobOptions.defaults());
        store.moveToActive("t", 60_000);
        // the previous version's getJob reads the record as it is: state waiting (its cancel then calls remove)
        assertEquals("waiting", redis.hget(queue.keys().job("j"), "state"));
        assertFalse(queue.remove("j"), "active with a live lock: refused");
        assertEquals(JobState.ACTIVE, job("j").state());
    }

    @Test
    void completionsOfSeveralRetentionsInOneCallApplyEachAndReportTheirOwnLostLocks() {
        JobOptions keepOne = JobOptions.defaults().withRemoveOnComplete(new Retention(86_400, 1));
        JobOptions keepMany = JobOptions.defaults().withRemoveOnComplete(new Retention(86_400, 1000));
        queue.add("x1", "x", keepOne);
        queue.add("y1", "y", keepMany);
        queue.add("x2", "x", keepOne);
        queue.add("y2", "y", keepMany);
        FetchedJob x1 = store.moveToActive("a", 60_000).job();
        FetchedJob y1 = store.moveToActive("b", 60_000).job();
        FetchedJob x2 = store.moveToActive("c", 60_000).job();
        FetchedJob y2 = store.moveToActive("d", 60_000).job();
        redis.set(queue.keys().lock("x2"), "taken-over", SetParams.setParams().px(60_000));

        // sent grouped by retention (x1, x2, then y1, y2): the lost position must map back to x2
        QueueStore.Completions reply = store.completeMany(List.of(new QueueStore.Completion(x1, -1),
                new QueueStore.Completion(y1, -1), new QueueStore.Completion(x2, -1),
                new QueueStore.Completion(y2, -1)), List.of(), 60_000);

        assertEquals(List.of(false, false, true, false),
                List.of(reply.lockLost()[0], reply.lockLost()[1], reply.lockLost()[2], reply.lockLost()[3]));
        assertEquals(JobState.ACTIVE, job("x2").state());
        assertEquals("taken-over", redis.get(queue.keys().lock("x2")));
        // keep-1 (the first group's) trimmed the completed set to its newest record; keep-1000 left it
        assertEquals(1L, queue.counts().get(JobState.COMPLETED));
        assertEquals("86400", redis.hget(queue.keys().meta(), "completedMaxAgeSec"));
        assertEquals("1", redis.hget(queue.keys().meta(), "completedMaxCount"), "the first retention recorded");
    }

    @Test
    void aLockValueCarriesTheFetchTimeOnlyWhenThisVersionWroteIt() {
        assertEquals("1796134586723", QueueStore.lockedAt(FetchedJob.lockValue("k3j:1a", "1796134586723")));
        assertNull(QueueStore.lockedAt("7194d4ad-33ce-4507-997f-e834c0abaffa:12"), "the previous version's token");
        assertNull(QueueStore.lockedAt("token@"));
        assertNull(QueueStore.lockedAt("token@12x"));
        assertNull(QueueStore.lockedAt(null));
        assertTrue(FetchedJob.lockValue("k3j:1a", "1796134586723").length() <= 44, "one allocation in Redis");
    }
}
