package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** R21: a throwing listener is logged and never breaks the worker or the other listeners. */
class WorkerListenerTest extends QueueFixture {

    @Test
    void aThrowingListenerBreaksNeitherTheWorkerNorTheOtherListeners() {
        queue.add("one", "x", JobOptions.defaults());
        queue.add("two", "x", JobOptions.defaults().withAttempts(1));
        queue.add("three", "x", JobOptions.defaults());
        Worker w = worker(FAST, job -> {
            job.updateProgress(50);
            if (job.id().equals("two")) {
                throw new IllegalStateException("two fails");
            }
        });
        w.addListener(new WorkerListener() {
            @Override
            public void completed(String jobId, int attemptsMade) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void failed(String jobId, int attemptsMade, boolean exhausted, String reason) {
                throw new AssertionError("listener error");
            }

            @Override
            public void progress(String jobId, int percent) {
                throw new IllegalStateException("listener bug");
            }
        });
        Events after = new Events();
        w.addListener(after);
        w.start();

        after.awaitNth("completed", "one", 1);
        assertTrue(after.awaitNth("failed", "two", 1).exhausted());
        after.awaitNth("completed", "three", 1);
        assertEquals(3, after.of("progress", "one").size() + after.of("progress", "two").size()
                + after.of("progress", "three").size());
        assertEquals(JobState.COMPLETED, job("three").state());
        assertEquals(50, job("three").progress());
        assertTrue(w.isRunning());
    }
}
