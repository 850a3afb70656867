package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** R2 duplicates, R1 run ids, bulk add, look-ups and removal. */
class QueueAddTest extends QueueFixture {

    @Test
    void concurrentAddsOfOneIdCreateExactlyOneJob() throws Exception {
        int threads = 10;
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Future<AddResult>> results = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int n = i;
            results.add(executor.submit(() -> {
                start.await(MAX_WAIT_MS, TimeUnit.MILLISECONDS);
                return queue.add("task-0", "payload-" + n, JobOptions.defaults());
            }));
        }
        int added = 0;
        int duplicates = 0;
        for (Future<AddResult> f : results) {
            if (f.get(MAX_WAIT_MS, TimeUnit.MILLISECONDS) == AddResult.ADDED) {
                added++;
            } else {
                duplicates++;
            }
        }
        assertEquals(1, added);
        assertEquals(9, duplicates);
        Map<JobState, Long> counts = queue.counts();
        assertEquals(1L, counts.get(JobState.WAITING));
        assertEquals(0L, counts.get(JobState.DELAYED));
        JobRecord job = job("task-0");
        assertEquals(JobState.WAITING, job.state());
        assertEquals(0, job.attemptsMade());
        assertEquals(3, job.maxAttempts());
        assertTrue(job.data().startsWith("payload-"));
    }

    @Test
    void nextRunIdIsAcceptedWhileTheOldRunsFailedRecordIsRetained() {
        JobOptions once = JobOptions.defaults().withAttempts(1);
        assertEquals(AddResult.ADDED, queue.add("task-0", "run 0", once));
        Worker w = worker(FAST, job -> {
            throw new IllegalStateException("run failed");
        });
        w.start();
        assertTrue(events.awaitNth("failed", "task-0", 1).exhausted());
        w.close();

        assertEquals(AddResult.DUPLICATE, queue.add("task-0", "run 0 again", once), "retained failed record");
        assertEquals(AddResult.ADDED, queue.add("task-1", "run 1", once));
        JobRecord old = job("task-0");
        assertEquals(JobState.FAILED, old.state());
        assertEquals("run 0", old.data(), "a duplicate add leaves the record untouched");
        assertEquals(JobState.WAITING, job("task-1").state());
    }

    @Test
    void duplicateOfACompletedRecordIsRefused() {
        queue.add("a", "x", JobOptions.defaults());
        Worker w = worker(FAST, job -> { });
        w.start();
        events.awaitNth("completed", "a", 1);
        w.close();
        assertEquals(AddResult.DUPLICATE, queue.add("a", "y", JobOptions.defaults()));
        assertEquals(JobState.COMPLETED, job("a").state());
    }

    @Test
    void addBulkReportsEachJobInOrder() {
        queue.add("b", "existing", JobOptions.defaults());
        List<AddResult> results = queue.addBulk(List.of(
                new NewJob("a", "1", JobOptions.defaults()),
                new NewJob("b", "2", JobOptions.defaults()),
                new NewJob("c", "3", JobOptions.defaults().withDelayMs(60_000)),
                new NewJob("a", "4", JobOptions.defaults())));
        assertEquals(List.of(AddResult.ADDED, AddResult.DUPLICATE, AddResult.ADDED, AddResult.DUPLICATE), results);
        assertEquals("1", job("a").data());
        assertEquals("existing", job("b").data());
        assertEquals(JobState.DELAYED, job("c").state());
        assertEquals(2L, queue.counts().get(JobState.WAITING));
        assertEquals(1L, queue.counts().get(JobState.DELAYED));
        assertEquals(List.of(), queue.addBulk(List.of()));
    }

    @Test
    void aDelayedJobRecordsItsOptions() {
        JobOptions options = JobOptions.defaults().withAttempts(5).withDelayMs(60_000);
        queue.add("d", "{\"k\":1}", options);
        JobRecord job = job("d");
        assertEquals(JobState.DELAYED, job.state());
        assertEquals(5, job.maxAttempts());
        assertEquals(0, job.attemptsStarted());
        assertEquals(0, job.progress());
        assertNull(job.processedAt());
        assertNull(job.finishedAt());
        assertNull(job.failedReason());
        assertFalse(job.exhausted());
        assertTrue(job.addedAt() != null);
    }

    @Test
    void invalidIdsAreRefusedBeforeAnythingIsSent() {
        assertThrows(IllegalArgumentException.class, () -> queue.add("a:lock", "x", JobOptions.defaults()));
        assertThrows(IllegalArgumentException.class, () -> queue.add("", "x", JobOptions.defaults()));
        assertThrows(IllegalArgumentException.class, () -> queue.addBulk(List.of(
                new NewJob("ok", "x", JobOptions.defaults()), new NewJob("bad:id", "x", JobOptions.defaults()))));
        assertTrue(queue.getJob("ok").isEmpty());
    }

    @Test
    void removeDeletesAnythingButALockedActiveJob() {
        queue.add("w", "x", JobOptions.defaults());
        queue.add("d", "x", JobOptions.defaults().withDelayMs(60_000));
        queue.add("a", "x", JobOptions.defaults());
        QueueStore store = new QueueStore(redis, queue.keys());
        assertEquals("w", store.moveToActive("token", 60_000).job().id(), "the oldest waiting job is fetched");

        assertFalse(queue.remove("w"), "active with a live lock");
        assertEquals(JobState.ACTIVE, job("w").state());
        assertTrue(queue.remove("d"));
        assertTrue(queue.remove("a"));
        assertFalse(queue.remove("a"), "already gone");
        assertTrue(queue.getJob("d").isEmpty());
        assertEquals(0L, queue.counts().get(JobState.DELAYED));
        assertEquals(0L, queue.counts().get(JobState.WAITING));

        redis.del(queue.keys().lock("w")); // the lock expired: an operator may now remove it
        assertTrue(queue.remove("w"));
        assertEquals(0L, queue.counts().get(JobState.ACTIVE));
    }

    @Test
    void aScriptUnknownToTheServerIsLoadedOnNoScript() {
        LuaScript script = new LuaScript("probe",
                "-- " + UUID.randomUUID() + "\n-- ARGV[1] text\nlocal text = ARGV[1]\nreturn text");
        assertEquals("hello", script.eval(redis, List.of(), List.of("hello")));
        assertEquals("again", script.eval(redis, List.of(), List.of("again")));
    }

    @Test
    void obliterateDeletesEveryKeyOfTheQueueOnly() {
        Queue other = new Queue(redis, prefix, "other");
        other.add("keep", "x", JobOptions.defaults());
        queue.add("a", "x", JobOptions.defaults());
        queue.obliterate();
        assertTrue(redis.keys(queue.keys().base() + "*").isEmpty());
        assertTrue(other.getJob("keep").isPresent());
        other.obliterate();
    }
}
