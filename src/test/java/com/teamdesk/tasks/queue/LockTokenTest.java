package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import redis.clients.jedis.params.SetParams;

/** R6 at the script level: every transition checks the lock token; a lost lock moves nothing. */
class LockTokenTest extends QueueFixture {

    private QueueStore store;

    @BeforeEach
    void store() {
        store = new QueueStore(redis, queue.keys());
    }

    @Test
    void aTakenOverLockRefusesEveryWriteOfTheOldHolder() {
        queue.add("j", "x", JobOptions.defaults());
        FetchedJob a = store.moveToActive("token-A", 60_000).job();
        assertEquals("j", a.id());
        String lock = queue.keys().lock("j");
        redis.set(lock, "token-B", SetParams.setParams().px(5_000)); // what a takeover leaves behind
        JobRecord before = job("j");

        assertTrue(store.complete(a, null, 60_000).lockLost());
        assertTrue(store.fail(a, "late", false, 0, null, 60_000).lockLost());
        assertTrue(store.fail(a, "late", true, 0, null, 60_000).lockLost());
        assertEquals(List.of("j"), store.extendLocks(List.of(Map.entry("j", "token-A")), 60_000));
        assertFalse(store.updateProgress("j", "token-A", 50));

        assertEquals(before, job("j"));
        assertEquals("token-B", redis.get(lock));
        assertTrue(redis.pttl(lock) <= 5_000, "not extended by the old holder");

        assertEquals(List.of(), store.extendLocks(List.of(Map.entry("j", "token-B")), 60_000));
        assertTrue(redis.pttl(lock) > 5_000, "extended by the owner");
        assertTrue(store.updateProgress("j", "token-B", 50));
        assertFalse(store.complete(heldBy(a, "token-B"), null, 60_000).lockLost());
        assertEquals(JobState.COMPLETED, job("j").state());
        assertFalse(redis.exists(lock), "completing releases the lock");
    }

    @Test
    void aMissingLockIsLostTooAndTheJobIsLeftToTheStalledCheck() {
        queue.add("k", "x", JobOptions.defaults());
        FetchedJob k = store.moveToActive("token-K", 60_000).job();
        redis.del(queue.keys().lock("k"));
        assertTrue(store.complete(k, null, 60_000).lockLost());
        assertEquals(JobState.ACTIVE, job("k").state());

        List<QueueStore.Stalled> stalled = store.moveStalledJobs(1, 60_000, "stalled");
        assertEquals(List.of(new QueueStore.Stalled("k", false, 0)), stalled);
        assertEquals(JobState.WAITING, job("k").state());
        assertEquals(List.of(), store.moveStalledJobs(1, 60_000, "stalled"), "one check per interval");
    }

    @Test
    void fetchingPromotesDueDelayedJobsAndReportsTheNextDueTime() {
        queue.add("soon", "x", JobOptions.defaults().withDelayMs(60_000));
        Fetch none = store.moveToActive("t1", 60_000);
        assertEquals(null, none.job());
        assertTrue(none.nextDueInMs() > 55_000 && none.nextDueInMs() <= 60_000, "due in " + none.nextDueInMs());
        redis.zadd(queue.keys().delayed(), 0, "soon"); // make it due now
        Fetch fetched = store.moveToActive("t2", 60_000);
        assertEquals("soon", fetched.job().id());
        assertEquals(1, fetched.job().attemptsStarted());
        assertEquals(fetched.job().token(), redis.get(queue.keys().lock("soon")));
        assertTrue(fetched.job().token().startsWith("t2@"), "the token, '@' and the fetch time");
        assertEquals(-1, store.moveToActive("t3", 60_000).nextDueInMs(), "nothing left");
    }

    @Test
    void finishingFetchesTheNextJobInTheSameScript() {
        queue.add("one", "1", JobOptions.defaults());
        queue.add("two", "2", JobOptions.defaults());
        FetchedJob one = store.moveToActive("t1", 60_000).job();
        QueueStore.Finish finish = store.complete(one, "t2", 60_000);
        assertEquals("two", finish.next().id());
        assertEquals("2", finish.next().data());
        assertEquals(JobState.ACTIVE, job("two").state());
        QueueStore.Finish last = store.fail(finish.next(), "boom", false, 60_000, "t3", 60_000);
        assertEquals(1, last.attemptsMade());
        assertFalse(last.exhausted());
        assertEquals(null, last.next(), "the retry is delayed, nothing else waits");
        assertEquals(JobState.DELAYED, job("two").state());
        assertEquals("boom", job("two").failedReason());
    }

    /** The same fetched job as seen by the execution holding {@code token} (what a takeover leaves). */
    private static FetchedJob heldBy(FetchedJob j, String token) {
        return new FetchedJob(j.id(), j.data(), j.attemptsMade(), j.attemptsStarted(), j.maxAttempts(),
                j.backoff(), j.removeOnComplete(), j.removeOnFail(), token);
    }
}
