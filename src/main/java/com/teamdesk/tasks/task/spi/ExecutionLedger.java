package com.teamdesk.tasks.task.spi;

import java.time.Instant;

/**
 * The ledger as one execution sees it: the lease-checked writes an {@link Execution} makes for its kind. The
 * ledger implements it; a kind never holds the ledger itself, so it cannot write a row it does not lease.
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
}
