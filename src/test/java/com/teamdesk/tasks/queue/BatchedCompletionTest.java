package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import redis.clients.jedis.params.SetParams;

/**
 * Issue 16 (P1): completions of several slots in one {@code complete} script call, each under its own
 * lock (R6), with the next jobs fetched in the same call; and the {@link Completer} that forms the batches.
 */
class BatchedCompletionTest extends QueueFixture {

    private QueueStore store;

    @BeforeEach
    void store() {
        store = new QueueStore(redis, queue.keys());
    }

    @Test
    void oneCallCompletesEachJobUnderItsOwnLockAndFetchesOneNextJobPerToken() {
        for (String id : List.of("a", "b", "c", "d", "e")) {
            queue.add(id, "x", JobOptions.defaults());
        }
        FetchedJob a = store.moveToActive("ta", 60_000).job();
        FetchedJob b = store.moveToActive("tb", 60_000).job();
        FetchedJob c = store.moveToActive("tc", 60_000).job();
        redis.set(queue.keys().lock("b"), "taken-over", SetParams.setParams().px(60_000));
        JobRecord bBefore = job("b");

        QueueStore.Completions reply = store.completeMany(List.of(new QueueStore.Completion(a, 100),
                new QueueStore.Completion(b, 100), new QueueStore.Completion(c, -1)), List.of("n1", "n2", "n3"), 60_000);

        assertFalse(reply.lockLost()[0]);
        assertTrue(reply.lockLost()[1], "b's lock was taken over");
        assertFalse(reply.lockLost()[2]);
        assertEquals(JobState.COMPLETED, job("a").state());
        assertEquals(100, job("a").progress(), "the final progress came with the completion");
        assertEquals(1, job("a").attemptsMade());
        assertEquals(JobState.COMPLETED, job("c").state());
        assertEquals(0, job("c").progress(), "no progress given: left as it was");
        assertEquals(bBefore, job("b"), "a lost lock changes nothing for that job");
        assertEquals("taken-over", redis.get(queue.keys().lock("b")));
        assertFalse(redis.exists(queue.keys().lock("a")), "completing releases the lock");

        assertEquals(2, reply.next().size(), "two jobs were waiting for three tokens");
        assertEquals(List.of("d", "e"), reply.next().stream().map(FetchedJob::id).toList());
        // the lock value is the token, '@' and the fetch time (issue 16, wave 4: the record is not written)
        assertTrue(redis.get(queue.keys().lock("d")).startsWith("n1@"), "the i-th job is locked for the i-th token");
        assertTrue(redis.get(queue.keys().lock("e")).startsWith("n2@"));
        assertEquals(redis.get(queue.keys().lock("d")), reply.next().get(0).token(), "the execution holds the lock value");
        assertEquals(Set.of("b", "d", "e"), redis.smembers(queue.keys().active()));
        assertEquals(-1, reply.nextDueInMs());
    }

    @Test
    void completionsThatFinishWhileABatchIsSentShareTheNextScriptCall() throws Exception {
        int n = 6;
        List<FetchedJob> fetched = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            queue.add("j" + i, "x", JobOptions.defaults());
            fetched.add(store.moveToActive("t" + i, 60_000).job());
        }
        queue.add("next", "x", JobOptions.defaults());
        Completer completer = new Completer(store, 60_000);
        List<Future<QueueStore.Finish>> finishes = new ArrayList<>();
        completer.combining.lock(); // a batch "in flight": every completion queues behind it
        try {
            for (int i = 0; i < n; i++) {
                FetchedJob job = fetched.get(i);
                String token = i == 0 ? "next-token" : null;
                finishes.add(executor.submit(() -> completer.complete(job, 100, token)));
            }
            CountDownLatch allQueued = new CountDownLatch(1);
            executor.submit(() -> {
                while (completer.queued() < n) {
                    Thread.onSpinWait();
                }
                allQueued.countDown();
            });
            assertTrue(allQueued.await(30, TimeUnit.SECONDS), "all completions queued");
        } finally {
            completer.combining.unlock();
            completer.handOver();
        }
        int withNext = 0;
        for (Future<QueueStore.Finish> f : finishes) {
            QueueStore.Finish finish = f.get(30, TimeUnit.SECONDS);
            assertFalse(finish.lockLost());
            assertEquals(1, finish.attemptsMade());
            if (finish.next() != null) {
                withNext++;
                assertEquals("next", finish.next().id());
                assertTrue(finish.next().token().startsWith("next-token@"), finish.next().token());
            }
        }
        assertEquals(1, withNext, "only the completion that asked for a next job got one");
        assertEquals(1, completer.scriptCalls(), "the six completions went out in one script call");
        for (int i = 0; i < n; i++) {
            assertEquals(JobState.COMPLETED, job("j" + i).state());
            assertEquals(100, job("j" + i).progress());
        }
        assertEquals(Set.of("next"), redis.smembers(queue.keys().active()));
    }

    @Test
    void aLoneCompletionGoesOutAtOnce() {
        queue.add("solo", "x", JobOptions.defaults());
        FetchedJob solo = store.moveToActive("ts", 60_000).job();
        Completer completer = new Completer(store, 60_000);
        QueueStore.Finish finish = completer.complete(solo, -1, "unused");
        assertFalse(finish.lockLost());
        assertNull(finish.next(), "nothing was waiting");
        assertEquals(1, completer.scriptCalls());
        assertEquals(JobState.COMPLETED, job("solo").state());
    }
}
