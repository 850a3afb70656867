package com.teamdesk.tasks.task.ledger;

import com.teamdesk.tasks.task.spi.Lease;
import com.teamdesk.tasks.task.spi.LeaseLost;
import com.teamdesk.tasks.task.spi.RunTimedOut;
import java.time.Instant;

/**
 * The fencing rule every write of an execution obeys (R8, R26), for the ledger and for a kind's own
 * statements (the export's result store writes its own SQL under the same lease): the statement names the
 * row, its run and the execution's fencing token ({@link #LEASE_CONDITION}, bound with
 * {@link #leaseArgs}); a count of 0 is a lost lease, more than 1 a bug; a write after the lease's deadline
 * is refused before it is made.
 */
public final class Fencing {
    /**
     * The lease check of a statement on {@code background_task} (R8): its row, run and fencing token, bound
     * in that order ({@link #leaseArgs}). It names no status: the table's CHECK
     * {@code execution_id IS NULL OR status = 'RUNNING'} makes a matching token imply RUNNING. Written with
     * {@code status = 'RUNNING'} too, the condition matched the predicate of
     * {@code background_task_running_idx}, and after an ANALYZE that saw few RUNNING rows the planner
     * scanned that whole partial index (with its dead entries) for every lease-checked write instead of
     * looking the row up by its primary key (issue 16).
     */
    public static final String LEASE_CONDITION = " WHERE id = ? AND run = ? AND execution_id = ?";

    /**
     * The condition that makes an auto-commit transaction commit asynchronously ({@code synchronous_commit}
     * off for that transaction only), for writes whose durability a later synchronous write carries: claims
     * and result chunks (docs/decisions.md "Claims commit asynchronously", "Chunk commits are
     * asynchronous"). A claim is a lease, not a result: every write that depends on it is lease-checked
     * and commits synchronously, and PostgreSQL flushes its WAL in order, so a durable write of an
     * execution implies its durable claim; a claim lost in a database crash is a lost lease (R8), and
     * its run is taken up again by reconciliation or stall recovery (R19, R20).
     */
    public static final String ASYNC_COMMIT = " AND set_config('synchronous_commit', 'off', true) IS NOT NULL";

    private Fencing() {
    }

    /** @return the arguments of {@link #LEASE_CONDITION}: task id, run, execution id */
    public static Object[] leaseArgs(Lease lease) {
        return new Object[] {lease.taskId(), lease.run(), lease.executionId()};
    }

    /**
     * R26: a lease-checked write after the execution's deadline is refused before it is made.
     *
     * @throws RunTimedOut when {@code now} is past {@code lease.deadline()}
     */
    public static void checkDeadline(Lease lease, String what, Instant now) {
        if (lease.deadline() != null && now.isAfter(lease.deadline())) {
            throw new RunTimedOut(lease, what);
        }
    }

    /**
     * R8: the row count of a lease-checked statement.
     *
     * @throws LeaseLost             when {@code count} is 0
     * @throws IllegalStateException when it is more than 1 (a bug)
     */
    public static void checkLease(Lease lease, String what, int count) {
        if (count == 0) {
            throw new LeaseLost(lease, what);
        }
        if (count != 1) {
            throw new IllegalStateException(what + " matched " + count + " rows for task " + lease.taskId());
        }
    }
}
