package com.teamdesk.tasks.task;

/**
 * Runs one kind of task for one execution that already holds the lease. Implementations write
 * only through lease-checked ledger statements and throw:
 * {@link TaskRejected} for a permanent rejection, {@link LeaseLost} when a lease-checked write
 * matched 0 rows, anything else for a transient error (R8, R11).
 */
public interface TaskRunner {
    /** @return the kind this runner executes */
    TaskKind kind();

    /**
     * Runs the task to completion, ending with a lease-checked final write (R13, R14).
     *
     * @throws Exception as classified by the processor (R11)
     */
    void run(Execution execution) throws Exception;
}
