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

    /**
     * Issue 53 (R59): creates tasks that a kind starts itself (no member asked), WAITING, run 0, not dispatched (the
     * dispatch sweep hands each to the queue at its {@code runAt}, R18), in ONE statement of the caller's transaction
     * ({@code MANDATORY}: they commit or roll back with the change that asked for them). Each names its identity in
     * {@code onceKey}, unique across the ledger: a task whose key exists already is not created again, so a replayed
     * change, two instances or a retried transaction make one task. A task with a {@code group} replaces the group's
     * older tasks still WAITING: they are CANCELLED in the same statement ({@code lastError = replaced}), so a group
     * keeps only its newest waiting (a ticket's escalations of older clock versions).
     *
     * @param replaced the cancelled tasks' {@code lastError}
     * @return how many tasks were created (those whose key was new)
     */
    int scheduleOnce(List<OnceTask> tasks, String replaced, Instant now);

    /**
     * One task of {@link #scheduleOnce}.
     *
     * @param kind    the kind asking (its own)
     * @param ownerId whom the task runs for (a member of {@code teamId})
     * @param params  the kind's stored JSON ({@code TaskKindHandler#store})
     * @param onceKey the task's identity, at most 200 characters, e.g. {@code sla:<ticket>:RESOLUTION:BREACH:3}
     * @param group   the tasks it replaces while they wait (e.g. {@code sla:<ticket>:RESOLUTION}), or null
     * @param runAt   not before this instant
     */
    record OnceTask(TaskKind kind, UUID teamId, UUID ownerId, TaskScope scope, String params, String onceKey,
            String group, Instant runAt) {
        /** @throws IllegalArgumentException a key or group that is empty or longer than 200 characters */
        public OnceTask {
            if (onceKey == null || onceKey.isEmpty() || onceKey.length() > 200
                    || (group != null && (group.isEmpty() || group.length() > 200))) {
                throw new IllegalArgumentException("a once key and a group have 1-200 characters");
            }
        }
    }
}
