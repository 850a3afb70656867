package com.teamdesk.tasks.web;

import com.teamdesk.tasks.task.ledger.ExecutionOutcome;
import com.teamdesk.tasks.task.ledger.TaskExecution;
import jakarta.json.bind.annotation.JsonbNillable;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import java.time.Instant;
import java.util.UUID;

/**
 * One execution of a task as {@code GET /api/v1/tasks/{id}/executions} shows it (R43). Absent values are
 * JSON null.
 *
 * @param executionId the execution's fencing token
 * @param run         the task's run it belonged to, 0-based like the task's {@code run} (a manual retry starts the next)
 * @param attempt     the attempt within that run, 1-based
 * @param worker      the queue worker that claimed it, or null
 * @param claimedAt   when it started
 * @param endedAt     when it ended, null while it runs
 * @param outcome     COMPLETED, FAILED, REJECTED, TIMED_OUT, CANCELLED, STALLED, TAKEN_OVER or DEFERRED; null while
 *                    it runs
 * @param cause       the fixed text of a failure, rejection, timeout or cancel, else null
 * @param durationMs  endedAt - claimedAt in milliseconds, null while it runs
 * @param progress    the progress it reached, 0-100
 * @param takenOverBy the execution that took over its lease (outcome TAKEN_OVER), else null
 */
@JsonbNillable
@JsonbPropertyOrder({"executionId", "run", "attempt", "worker", "claimedAt", "endedAt", "outcome", "cause", "durationMs",
        "progress", "takenOverBy"})
@org.eclipse.microprofile.openapi.annotations.media.Schema(name = "Execution")
public record ExecutionJson(UUID executionId, int run, int attempt, String worker, Instant claimedAt, Instant endedAt,
        ExecutionOutcome outcome, String cause, Long durationMs, int progress, UUID takenOverBy) {

    /** @return the JSON form of an execution */
    public static ExecutionJson of(TaskExecution e) {
        return new ExecutionJson(e.executionId(), e.run(), e.attempt(), e.worker(), e.claimedAt(), e.endedAt(),
                e.outcome(), e.cause(), e.duration() == null ? null : e.duration().toMillis(), e.progress(),
                e.takenOverBy());
    }
}
