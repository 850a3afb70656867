package com.teamdesk.tasks.queue;

/**
 * Worker events, delivered on worker threads after the transition has been written to Redis. Every method
 * defaults to a no-op. A listener that throws is logged and never breaks the worker or the other
 * listeners (R21). Listeners should be quick; they run on the thread that processed the job.
 */
public interface WorkerListener {

    /**
     * A job completed.
     *
     * @param jobId        the job id
     * @param attemptsMade executions that finished, the completing one included (1 when it succeeded first time;
     *                     like BullMQ 5+)
     */
    default void completed(String jobId, int attemptsMade) {
    }

    /**
     * An execution failed, or a job stalled more than allowed (R6).
     *
     * @param jobId        the job id
     * @param attemptsMade failed executions so far, this one included
     * @param exhausted    true when the job is FAILED for good (attempts used up, unrecoverable, or stalled
     *                     over the limit); false when it will be retried after its backoff
     * @param reason       the error message (never a stack trace)
     */
    default void failed(String jobId, int attemptsMade, boolean exhausted, String reason) {
    }

    /**
     * An execution was deferred ({@link JobDeferredException}): the job is back in delayed for {@code delayMs}
     * with {@code attemptsMade} unchanged (issue 28).
     *
     * @param jobId   the job id
     * @param delayMs how long until it may be fetched again, in ms
     * @param reason  the processor's fixed reason
     */
    default void deferred(String jobId, long delayMs, String reason) {
    }

    /**
     * A job's lock expired while it was active (R6); the job went back to waiting, or to failed when it
     * stalled more than {@link WorkerOptions#maxStalledCount()} times (then {@link #failed} follows).
     * Emitted by the worker whose stalled check found it, which need not be the one that ran it.
     *
     * @param jobId the job id
     */
    default void stalled(String jobId) {
    }

    /**
     * A running execution reported progress through {@link Job#updateProgress(int)}.
     *
     * @param jobId   the job id
     * @param percent 0-100
     */
    default void progress(String jobId, int percent) {
    }
}
