package com.teamdesk.tasks.queue;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Records worker events so that tests can wait for them instead of sleeping. */
final class Events implements WorkerListener {

    record Event(String type, String jobId, int attemptsMade, boolean exhausted, String reason, int percent) {
    }

    private final List<Event> all = new ArrayList<>();

    @Override
    public void completed(String jobId, int attemptsMade) {
        record(new Event("completed", jobId, attemptsMade, false, null, -1));
    }

    @Override
    public void failed(String jobId, int attemptsMade, boolean exhausted, String reason) {
        record(new Event("failed", jobId, attemptsMade, exhausted, reason, -1));
    }

    @Override
    public void deferred(String jobId, long delayMs, String reason) {
        record(new Event("deferred", jobId, -1, false, reason, -1));
    }

    @Override
    public void stalled(String jobId) {
        record(new Event("stalled", jobId, -1, false, null, -1));
    }

    @Override
    public void progress(String jobId, int percent) {
        record(new Event("progress", jobId, -1, false, null, percent));
    }

    private synchronized void record(Event e) {
        all.add(e);
        notifyAll();
    }

    /** The events of one type and job so far, in order. */
    synchronized List<Event> of(String type, String jobId) {
        List<Event> matching = new ArrayList<>();
        for (Event e : all) {
            if (e.type().equals(type) && e.jobId().equals(jobId)) {
                matching.add(e);
            }
        }
        return matching;
    }

    /** Waits until at least {@code n} events of this type and job were recorded; returns all of them. */
    synchronized List<Event> await(String type, String jobId, int n) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(QueueFixture.MAX_WAIT_MS);
        List<Event> matching = of(type, jobId);
        while (matching.size() < n) {
            long waitMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (waitMs <= 0) {
                fail("timed out waiting for " + n + " '" + type + "' event(s) of job " + jobId + "; got " + all);
            }
            try {
                wait(waitMs);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
            matching = of(type, jobId);
        }
        return matching;
    }

    /** Waits for the n-th event (1-based) of this type and job. */
    Event awaitNth(String type, String jobId, int n) {
        return await(type, jobId, n).get(n - 1);
    }
}
