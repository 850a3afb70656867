package com.teamdesk.tasks.task.ledger;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.task.spi.Lease;
import com.teamdesk.tasks.task.spi.LeaseLost;
import com.teamdesk.tasks.task.spi.RunTimedOut;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;

/**
 * The fencing rule every write of an execution obeys (R8, R26), used by the ledger only (a kind's own
 * statements under the lease go through {@code ExecutionLedger#writeUnderLease} and the completions): the
 * statement names the row, its run and the execution's fencing token ({@link #LEASE_CONDITION}, bound here and
 * nowhere else: {@link #bind}, {@link #withLease}); a count of 0 is a lost lease, more than 1 a bug; a write
 * after the lease's deadline is refused before it is made.
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

    /**
     * @return {@code head} followed by the arguments of {@link #LEASE_CONDITION} (task id, run, execution id), for a
     *         statement whose other placeholders come first
     */
    static Object[] withLease(Lease lease, Object... head) {
        Object[] args = Arrays.copyOf(head, head.length + 3);
        args[head.length] = lease.taskId();
        args[head.length + 1] = lease.run();
        args[head.length + 2] = lease.executionId();
        return args;
    }

    /**
     * Binds the arguments of {@link #LEASE_CONDITION} (task id, run, execution id) from placeholder {@code first}: the
     * one place a lease is bound.
     *
     * @return the index after them
     */
    static int bind(PreparedStatement ps, int first, Lease lease) throws SQLException {
        Jdbc.bind(ps, first, lease.taskId(), lease.run(), lease.executionId());
        return first + 3;
    }

    /**
     * R26: a lease-checked write after the execution's deadline is refused before it is made.
     *
     * @throws RunTimedOut when {@code now} is past {@code lease.deadline()}
     */
    public static void checkDeadline(Lease lease, String what, Instant now) {
        RunTimedOut.check(lease, what, now);
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
