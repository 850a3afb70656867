package com.teamdesk.tasks.task.admin;

import com.teamdesk.tasks.task.ledger.ExecutionOutcome;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.task.spi.TaskStatus;
import jakarta.json.JsonObject;
import jakarta.json.bind.annotation.JsonbNillable;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** The shapes the operator API answers (serialised by JSON-B; times ISO-8601, durations in ms). */
public final class AdminViews {
    private AdminViews() {
    }

    /**
     * {@code GET /admin/overview}.
     *
     * @param counts              tasks by status and kind (every combination, zeros included)
     * @param oldestWaitingAgeMs  now − runAt of the oldest due WAITING run; null when none waits
     * @param dueUndispatched     WAITING runs due ({@code runAt <= now}) not yet handed to the queue, that wait for no
     *                            other task
     * @param waitingForOthers    issue 52: WAITING runs that wait for other tasks to complete (R53)
     * @param openBatches         issue 52: batches some of whose children have not ended (R51)
     * @param running             RUNNING runs, oldest ledger write first (at most 100)
     * @param queue               the Redis queue's jobs by state
     */
    @JsonbNillable
    public record Overview(Instant at, List<Count> counts, Long oldestWaitingAgeMs, long dueUndispatched,
            long waitingForOthers, long openBatches, List<RunningRun> running, Map<String, Long> queue) {
    }

    /** Tasks of one status and kind. */
    public record Count(TaskStatus status, String kind, long count) {
    }

    /**
     * One RUNNING run: who holds its lease and when it last wrote.
     *
     * @param attempt    the execution's attempt (R3)
     * @param claimedBy  the queue worker that claimed it (see {@code GET /admin/workers})
     * @param leaseAgeMs now − updatedAt: how long since the execution last wrote (R19 heals it at 2 min)
     */
    @JsonbNillable
    public record RunningRun(UUID id, String kind, UUID teamId, int run, int attempt, int progress, String claimedBy,
            Instant updatedAt, long leaseAgeMs) {
    }

    /**
     * A task with every field but the CSV (operators only).
     *
     * @param resultBytes size of the stored CSV; null when none
     * @param changeSeq   the row's change sequence (the id of its last live event)
     */
    @JsonbNillable
    public record AdminTask(UUID id, String kind, UUID teamId, UUID ownerId, TaskScope scope, JsonObject filters,
            TaskStatus status, int run, int attempts, int progress, UUID executionId, String claimedBy,
            Instant dispatchedAt, Instant runAt, String lastError, String resultSummary, Integer resultBytes,
            String resultDigest, Instant expiresAt, Instant createdAt, Instant updatedAt, long changeSeq) {
    }

    /**
     * One queue worker (R22).
     *
     * @param state {@code live} while its heartbeat key exists, else {@code gone}
     */
    public record WorkerView(String id, String host, String state, Instant startedAt, int concurrency, int busy,
            Instant lastBeat) {
    }

    /**
     * The sweeps of one server instance, as it last reported them, and its clock's offset to PostgreSQL
     * (PostgreSQL minus the instance, ms; null when the instance did not report one; issue 28).
     */
    public record InstanceTimers(String instance, Instant reportedAt, boolean thisInstance, List<JsonObject> timers,
            Long clockOffsetMs) {
    }

    /**
     * Answer of {@code POST /admin/tasks/retry}.
     *
     * @param retried the tasks now WAITING in a new run
     * @param skipped the matching tasks not retried, with the reason
     */
    public record BulkRetry(int limit, List<UUID> retried, List<Skipped> skipped) {
    }

    /** A task a bulk retry left alone. */
    public record Skipped(UUID id, String reason) {
    }

    /**
     * One execution across teams (R44): the member's execution (R43) with its task, kind and team.
     *
     * @param durationMs endedAt - claimedAt in ms, null while it runs
     * @param outcome    null while it runs
     * @param batchId    issue 52: the batch its task is a child or the completion of, else null
     */
    @JsonbNillable
    public record AdminExecution(UUID taskId, String kind, UUID teamId, UUID executionId, int run, int attempt,
            String worker, Instant claimedAt, Instant endedAt, ExecutionOutcome outcome, String cause, Long durationMs,
            int progress, UUID takenOverBy, UUID batchId) {
    }

    /**
     * Answer of {@code GET /admin/executions/summary} (R44): how the executions of a time range ended.
     *
     * @param from   the range's start, or null (unbounded)
     * @param to     the range's end, or null (unbounded)
     * @param counts one entry per outcome that occurs ({@code RUNNING}: still open), in outcome order
     */
    @JsonbNillable
    public record ExecutionSummary(Instant from, Instant to, List<OutcomeCount> counts) {
    }

    /** Executions of one outcome ({@code RUNNING}: not ended yet) and how many distinct workers ran them. */
    public record OutcomeCount(String outcome, long count, long workers) {
    }
}
