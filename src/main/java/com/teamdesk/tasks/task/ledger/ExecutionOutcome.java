package com.teamdesk.tasks.task.ledger;


/**
 * How an execution ended (R43), as {@code task_execution.outcome} stores it. The database derives most of
 * them from the lease transition (V13's trigger); the statements that know better say so through
 * {@link #sqlCondition()}.
 */
public enum ExecutionOutcome {
    /** The kind's completion committed under the lease. */
    COMPLETED,
    /** The execution failed; {@code cause} is the task's fixed {@code lastError} (a retry may follow, R11). */
    FAILED,
    /** The kind refused the task for good ({@code TaskRejected}); {@code cause} is the fixed reason. */
    REJECTED,
    /** Stopped at the kind's run timeout (R26); {@code cause} is the fixed message. */
    TIMED_OUT,
    /** A member cancelled the running task (R23); {@code cause} is the cancel's message. */
    CANCELLED,
    /** The sweep took the lease of an execution that stopped writing (R19): crashed, frozen, or killed. */
    STALLED,
    /** A new execution of the same run claimed the lease (R7); {@code takenOverBy} names it. */
    TAKEN_OVER,
    /** The run went back to WAITING without a failure report (kept for a transition no statement names). */
    DEFERRED;

    /**
     * @return a condition that is always true, to add to the WHERE clause of a statement that ends executions
     *         with this outcome: {@code (SELECT task_execution_outcome('STALLED'))} (V13). As a subquery it is
     *         evaluated once per statement (a one-time filter), not once per row scanned; only the triggers
     *         fired by that same statement read it
     */
    public String sqlCondition() {
        return "(SELECT task_execution_outcome('" + name() + "'))";
    }
}
