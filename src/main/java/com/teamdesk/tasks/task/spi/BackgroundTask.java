package com.teamdesk.tasks.task.spi;

import java.time.Instant;
import java.util.UUID;

/**
 * One ledger row (SPEC "A background task"), as read in one statement. A record, so that two
 * reads compare field by field: tests take a snapshot right after a claim and prove that a late
 * execution changed nothing. The CSV itself is represented by {@code resultDigest} (hex SHA-256
 * of the stored bytes, null when none) and {@code resultBytes}; the bytes are stored in chunks,
 * read with the export's {@code ExportResultStore}.
 *
 * @param params     the kind's validated parameters as JSON text ({@link TaskKindHandler#store}:
 *                   export filters + timeZone, or reminder ticketId/message/recipients); stored in
 *                   the column {@code filters}, the name the API shows
 * @param run        0-based run number; people see {@code run + 1}
 * @param attempts   the current execution's attempt (queue attemptsMade + 1, R3); 0 before any
 * @param progress   0-100
 * @param executionId the lease (fencing token) allowed to write; null when none (R7, R8)
 * @param runAt       not before this instant; later than {@code createdAt} for a scheduled task (R24)
 * @param cancelledAt when a member cancelled the run (R23), else null
 * @param cancelledBy who cancelled it (a user id), else null
 * @param scheduleId  issue 31: the schedule this task is an occurrence of, else null
 * @param slotAt      issue 31: the schedule's slot it runs for, or null (not an occurrence, or a "run now")
 * @param traceParent issue 32 (R45): the W3C {@code traceparent} of the request that created the task, or null
 *                    (tracing off, or created without a request: a schedule's occurrence)
 * @param traceSpan   issue 32 (R45): the W3C {@code traceparent} of the span of the latest execution, or null
 * @param batchId     issue 52 (R51): the batch this task is a child of, else null
 * @param completesBatch issue 52 (R52): the batch this task is the completion of, else null
 * @param waitsFor    issue 52 (R53): prerequisites not yet settled; the task is not dispatched before 0
 * @param runAnyway   issue 52 (R53): runs even when a prerequisite failed or was cancelled
 * @param hasDependents issue 52 (R53): some task waits for this one
 */
public record BackgroundTask(
        UUID id,
        TaskKind kind,
        UUID teamId,
        UUID ownerId,
        TaskScope scope,
        String params,
        TaskStatus status,
        int run,
        int attempts,
        int progress,
        UUID executionId,
        Instant dispatchedAt,
        Instant runAt,
        String lastError,
        String resultDigest,
        Integer resultBytes,
        String resultSummary,
        Instant expiresAt,
        Instant createdAt,
        Instant updatedAt,
        Instant cancelledAt,
        UUID cancelledBy,
        UUID scheduleId,
        Instant slotAt,
        String traceParent,
        String traceSpan,
        UUID batchId,
        UUID completesBatch,
        int waitsFor,
        boolean runAnyway,
        boolean hasDependents) {

    /** @return the queue job id of the current run, {@code "<id>-<run>"} (R1) */
    public String jobId() {
        return TaskJobId.of(id, run).toString();
    }

    /** @return true when the task belongs to a batch or some task waits for it (R51, R53): its end settles them */
    public boolean settlesOthers() {
        return batchId != null || hasDependents;
    }

    /** @return true when a CSV is stored */
    public boolean hasResult() {
        return resultDigest != null;
    }
}
