package com.teamdesk.tasks.task.spi;

import java.time.Instant;
import java.util.List;

/**
 * The ledger as one execution sees it: the named, lease-checked transitions an {@link Execution} makes for its kind,
 * and the lease condition of a kind's own statements. The ledger implements it and is the only writer of
 * {@code background_task}; each transition is ONE statement with the lease check inside it (R8), so a kind writes
 * no SQL on the task row and binds no lease itself. A kind asks its {@link Execution} for the transitions; a kind's
 * store that writes its own table under the lease (the export's chunks) injects this interface.
 */
public interface ExecutionLedger {

    /**
     * R8/R10: writes progress under the lease and moves {@code updatedAt}.
     *
     * @param percent 0-99
     * @throws LeaseLost   the lease no longer matches
     * @throws RunTimedOut past the run's deadline (R26)
     */
    void writeProgress(Lease lease, int percent, Instant now);

    /**
     * Reads the row under the lease (no lock): inside a kind's completing transaction, an early exit. It never replaces
     * the check at completion (R14).
     *
     * @throws LeaseLost the lease no longer matches
     */
    BackgroundTask readUnderLease(Lease lease);

    /**
     * Completes the run under the lease: COMPLETED, progress 100, lease and {@code lastError} cleared, {@code updatedAt
     * = now}. Runs inside the caller's JTA transaction ({@code MANDATORY}): a kind whose side effects must commit with
     * its completion (R14) calls it there, and the {@link LeaseLost} it throws rolls them back.
     *
     * @param what names the transition in errors, e.g. {@code reminder completion}
     * @return true when this end may release others (issue 52): some task waits for this one (R53), or it may be the
     *         last child of its batch (R52); once the caller's transaction committed, what it released is handed over
     * @throws LeaseLost   the statement did not match exactly one row
     * @throws RunTimedOut past the run's deadline (R26); nothing is written
     */
    boolean complete(Lease lease, String what, Instant now);

    /**
     * Issue 53: {@link #complete} that also says what the run did in the task's {@code resultSummary} (e.g. an
     * escalation {@code superseded}), in the same statement.
     *
     * @param summary at most 500 characters, shown as the task's {@code resultSummary}
     */
    boolean complete(Lease lease, String what, String summary, Instant now);

    /**
     * Completes the run under the lease with a stored result (R13): as {@link #complete}, and the result columns
     * ({@code result_execution_id} = this execution, size, SHA-256, summary, expiry), in ONE statement that also runs
     * {@code own}'s writes for the row it matched (none when the lease did not hold). Commits on its own when no JTA
     * transaction is active.
     *
     * @return true when it completed; false when the lease no longer held (nothing written, {@code own} wrote nothing)
     * @throws RunTimedOut past the run's deadline (R26); nothing is written
     */
    boolean completeWithResult(ResultCompletion completion, OwnWrites own);

    /**
     * {@link #completeWithResult} for several executions in ONE statement and one commit (issue 16), each row checked
     * against its own lease; rows locked in id order, so two such statements never deadlock. {@code own} sees the
     * rows that matched as {@code done}. No deadline check: the caller made it when it asked.
     *
     * @return per completion, in order: true when it completed, false when its lease no longer held
     */
    List<Boolean> completeWithResults(List<ResultCompletion> batch, OwnWrites own);

    /**
     * A kind's own statement fenced by the lease (R8): {@code statement} reads the task row ({@code … FROM
     * background_task}) and writes only the kind's own table; the ledger appends the lease condition (and, when
     * {@code asyncCommit}, the condition that makes its auto-commit transaction commit asynchronously), binds
     * {@code args} first and the lease after them, and checks the count.
     *
     * @param what names the write in errors, e.g. {@code result chunk write}
     * @throws LeaseLost   the count is 0
     * @throws RunTimedOut past the run's deadline (R26); nothing is written
     */
    void writeUnderLease(Lease lease, String what, Instant now, String statement, Binder args, boolean asyncCommit);
}
