package com.teamdesk.tasks.task.spi;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The ledger as a kind sees it outside any execution: the transitions a kind asks for on its tasks' rows when no run
 * of its own executes (R24's reminders cancelled when their ticket closes; R13's expired results cleared by the purge
 * sweep). The ledger implements it (a CDI bean); a kind names itself and what identifies its rows, and the ledger
 * writes {@code background_task}.
 */
public interface KindLedger {

    /**
     * Cancels the WAITING runs of {@code kind} in {@code teamId} whose stored parameter {@code param} is
     * {@code value}, in the caller's transaction ({@code MANDATORY}), as the ledger's cancel does row by row
     * (CANCELLED, lease cleared, who and when, {@code lastError = message}; {@code dispatchedAt} kept for R23).
     *
     * @param param a parameter name of the kind's stored JSON: letters, digits, {@code _} (an index may name it)
     * @return the runs cancelled
     * @throws IllegalArgumentException {@code param} is not such a name
     */
    List<TaskJobId> cancelWaiting(TaskKind kind, UUID teamId, String param, String value, UUID cancelledBy,
            String message, Instant now);

    /**
     * R13: clears up to {@code limit} stored results whose expiry ({@code expires_at}) is over, in one statement with
     * {@code own}'s writes, which see the cleared rows as {@code done(id)} (the kind's stored bytes); the task row, its
     * summary and expiry stay (410 Gone). Rows another sweep holds are skipped.
     *
     * @return how many results were cleared
     */
    int clearExpiredResults(Instant now, int limit, OwnWrites own);
}
