package com.teamdesk.tasks.task.spi;

/** The engine's {@link PausePoint}s, and the one every kind that completes in its own transaction reaches. */
public enum EnginePausePoint implements PausePoint {
    /** Right after a successful claim (R7) committed. */
    AFTER_CLAIM,
    /** Right before the lease-checked ledger progress write (R10); a fault here is a failing progress write. */
    BEFORE_PROGRESS_WRITE,
    /** Right after a lease-checked ledger progress write matched (R10); counts the writes an execution made. */
    AFTER_PROGRESS_WRITE,
    /**
     * Any kind whose side effects commit with its completion (issue 29): inside its transaction, after
     * its side effects, right before its lease-checked completion ({@link Execution#complete}).
     */
    BEFORE_COMPLETION,
    /** Before the lease-checked failure report (R11). */
    BEFORE_FAILURE_REPORT,
    /** After the ledger committed COMPLETED, before the final progress-100 report to the queue (R12). */
    BEFORE_FINAL_QUEUE_REPORT
}
