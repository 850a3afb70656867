package com.teamdesk.tasks.task.ledger;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * One execution of a task (R43): a row of {@code task_execution}, opened by the claim and closed by the
 * statement that ended its lease.
 *
 * @param executionId the execution's fencing token (R7)
 * @param run         the run it belonged to (R16: a manual retry starts a new run)
 * @param attempt     the attempt within the run, 1-based ({@code attempts} after its claim, R3)
 * @param worker      the queue worker that claimed it ({@code claimed_by}), or null
 * @param claimedAt   when it claimed the lease (the claiming server's clock)
 * @param endedAt     when it ended, or null while it runs
 * @param outcome     how it ended, or null while it runs
 * @param cause       the fixed text of a failure, rejection, timeout or cancel, else null
 * @param progress    the progress it reached, 0-100
 * @param takenOverBy the execution that took its lease over ({@link ExecutionOutcome#TAKEN_OVER}), else null
 */
public record TaskExecution(UUID executionId, int run, int attempt, String worker, Instant claimedAt, Instant endedAt,
        ExecutionOutcome outcome, String cause, int progress, UUID takenOverBy) {

    /** @return the time from claim to end, or null while it runs */
    public Duration duration() {
        return endedAt == null ? null : Duration.between(claimedAt, endedAt);
    }
}
