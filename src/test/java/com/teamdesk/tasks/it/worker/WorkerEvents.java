package com.teamdesk.tasks.it.worker;

import com.teamdesk.tasks.queue.JobProcessor;
import com.teamdesk.tasks.queue.WorkerListener;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * What real workers did, in the order it happened: the events each worker emitted to its listeners
 * ({@link #listener(String)}) and what the production processor did in each execution
 * ({@link #observe(String, JobProcessor, Function)}: started, returned or threw, and the ledger row right
 * after the processor ended, before the worker recorded the outcome in Redis). Each event names the worker
 * ("A", "B") that saw it. Thread-safe.
 *
 * <p>{@link #await} is the only wait: bounded by {@link #MAX_WAIT_MS}, it detects a sync point that never
 * came; it never orders anything by time.
 */
public final class WorkerEvents {
    /** Upper bound of any wait for an event, in ms. */
    public static final long MAX_WAIT_MS = 8_000;

    /** Kinds of events. */
    public enum Kind {
        /** Listener: the stalled check found the job's lock expired (R6). */
        STALLED,
        /** Listener: an execution failed, or the job stalled over the limit. */
        FAILED,
        /** Listener: the job completed. */
        COMPLETED,
        /** Processor: an execution of the job started on this worker. */
        STARTED,
        /** Processor: the production processor returned normally (the worker will try to complete the job). */
        RETURNED,
        /** Processor: the production processor threw (the worker will try to fail the job). */
        THREW
    }

    /**
     * One event.
     *
     * @param worker       the worker that saw it
     * @param kind         what happened
     * @param jobId        the job
     * @param attemptsMade the listener's attemptsMade (FAILED, COMPLETED) or the execution's {@code Job.attemptsMade()}
     *                     (STARTED, RETURNED, THREW); -1 for STALLED
     * @param exhausted    FAILED: the job failed for good
     * @param reason       FAILED: the queue's reason; THREW: the exception's class and message
     * @param row          RETURNED/THREW: the ledger row right after the processor ended (null otherwise)
     * @param nanos        {@link System#nanoTime()} when it was recorded
     */
    public record Event(String worker, Kind kind, String jobId, int attemptsMade, boolean exhausted, String reason,
            BackgroundTask row, long nanos) {
    }

    private final List<Event> events = new ArrayList<>(); // guarded by this

    private synchronized void add(String worker, Kind kind, String jobId, int attemptsMade, boolean exhausted,
            String reason, BackgroundTask row) {
        events.add(new Event(worker, kind, jobId, attemptsMade, exhausted, reason, row, System.nanoTime()));
        notifyAll();
    }

    /** @return every event of {@code jobId}, in order */
    public synchronized List<Event> of(String jobId) {
        return events.stream().filter(e -> e.jobId().equals(jobId)).toList();
    }

    /** @return the events of this kind of {@code jobId}, in order */
    public synchronized List<Event> of(Kind kind, String jobId) {
        return events.stream().filter(e -> e.kind() == kind && e.jobId().equals(jobId)).toList();
    }

    /**
     * Waits for the {@code nth} (1-based) event of this kind of {@code jobId}.
     *
     * @throws AssertionError when it did not come within {@link #MAX_WAIT_MS} ms
     */
    public synchronized Event await(Kind kind, String jobId, int nth) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAX_WAIT_MS);
        while (true) {
            List<Event> matching = of(kind, jobId);
            if (matching.size() >= nth) {
                return matching.get(nth - 1);
            }
            long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (leftMs <= 0) {
                throw new AssertionError("no " + kind + " #" + nth + " of job " + jobId + " within " + MAX_WAIT_MS
                        + " ms; events of the job: " + of(jobId));
            }
            wait(leftMs);
        }
    }

    /** @return a listener that records what worker {@code worker} emits (add it last: it then sees the event after the others) */
    public WorkerListener listener(String worker) {
        return new WorkerListener() {
            @Override
            public void failed(String jobId, int attemptsMade, boolean exhausted, String reason) {
                add(worker, Kind.FAILED, jobId, attemptsMade, exhausted, reason, null);
            }

            @Override
            public void completed(String jobId, int attemptsMade) {
                add(worker, Kind.COMPLETED, jobId, attemptsMade, false, null, null);
            }

            @Override
            public void stalled(String jobId) {
                add(worker, Kind.STALLED, jobId, -1, false, null, null);
            }

            @Override
            public String toString() {
                return "recorder of worker " + worker;
            }
        };
    }

    /**
     * Observes the production processor without changing what it does: the same job goes in, the same
     * outcome (return or the same exception) comes out.
     *
     * @param rowOf reads the task row of a job id (null when it is not a task job)
     */
    public JobProcessor observe(String worker, JobProcessor production, Function<String, BackgroundTask> rowOf) {
        return job -> {
            add(worker, Kind.STARTED, job.id(), job.attemptsMade(), false, null, null);
            try {
                production.process(job);
            } catch (Exception | Error e) {
                add(worker, Kind.THREW, job.id(), job.attemptsMade(), false, e.getClass().getSimpleName() + ": "
                        + e.getMessage(), rowOf.apply(job.id()));
                throw e;
            }
            add(worker, Kind.RETURNED, job.id(), job.attemptsMade(), false, null, rowOf.apply(job.id()));
        };
    }
}
