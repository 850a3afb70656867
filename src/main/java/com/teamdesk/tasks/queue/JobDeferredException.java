package com.teamdesk.tasks.queue;

/**
 * Thrown by a {@link JobProcessor} when an execution could not start or go on for a reason outside the job
 * itself (its database or another service unreachable): the job goes back to delayed for {@link #delayMs()}
 * <em>without</em> counting an attempt ({@code attemptsMade} unchanged, R4 untouched), the counterpart of
 * BullMQ's rate-limit path ({@code Worker.RateLimitError}, {@code moveToDelayed}). Listeners hear
 * {@link WorkerListener#deferred}, never {@code failed}. A processor that wants an outage to end a job after
 * all throws {@link UnrecoverableJobException} instead, with its own budget (issue 28).
 */
public class JobDeferredException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long delayMs;

    /**
     * @param reason  a fixed, short text stored as the job's {@code deferredReason} (never a stack trace)
     * @param delayMs how long until the job may be fetched again, in ms (at least 1 is used)
     * @param cause   the underlying error (logged by the processor, never stored in Redis)
     */
    public JobDeferredException(String reason, long delayMs, Throwable cause) {
        super(reason, cause);
        this.delayMs = Math.max(1, delayMs);
    }

    /** @return how long until the job may be fetched again, in ms (at least 1) */
    public long delayMs() {
        return delayMs;
    }
}
