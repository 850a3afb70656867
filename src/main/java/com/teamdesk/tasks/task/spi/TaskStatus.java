package com.teamdesk.tasks.task.spi;

/** Ledger status of a task's current run. */
public enum TaskStatus {
    /** Not running: waiting for dispatch, for the queue, or for a retry after backoff. */
    WAITING,
    /** An execution holds the lease ({@code executionId} set). */
    RUNNING,
    /** The run finished; its result is in the ledger. */
    COMPLETED,
    /** The run failed for good; {@code lastError} says why. A member may retry it as a new run. */
    FAILED,
    /**
     * A member cancelled the task (R23): terminal, lease cleared, {@code lastError} a fixed message. No sweep
     * moves it; a member may retry it as a new run (R15).
     */
    CANCELLED;

    /** @return true for the final states, COMPLETED, FAILED and CANCELLED (what a batch counts, R52) */
    public boolean isFinal() {
        return this == COMPLETED || this == FAILED || this == CANCELLED;
    }
}
