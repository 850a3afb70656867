package com.teamdesk.tasks.queue;

import java.time.Instant;

/**
 * A snapshot of one job record as stored in Redis (see {@link Queue#getJob(String)}).
 *
 * @param id              the job id
 * @param data            the opaque payload
 * @param state           the current state
 * @param attemptsMade    executions that finished so far, failed or completed (as BullMQ 5+); stalled
 *                        executions are not counted; a job completing on its third execution shows 3
 * @param attemptsStarted executions started so far, stalled ones included (attemptsMade + stalledCounter, + 1
 *                        while active)
 * @param maxAttempts     the job's {@link JobOptions#attempts()}
 * @param stalledCounter  how often the job was found stalled (R6)
 * @param progress        last reported progress, 0-100
 * @param failedReason    message of the last error, or null if none
 * @param exhausted       true only when {@code state == FAILED}: attempts used up, unrecoverable error, or
 *                        stalled more than allowed (R21)
 * @param addedAt         when the job was added (Redis server clock)
 * @param processedAt     when the running execution started (while active), else when the latest execution
 *                        that completed or failed started; null if none did (an execution that stalled is
 *                        not recorded)
 * @param finishedAt      when the job completed or failed for good, or null if not finished
 */
public record JobRecord(String id, String data, JobState state, int attemptsMade, int attemptsStarted,
                        int maxAttempts, int stalledCounter, int progress, String failedReason, boolean exhausted,
                        Instant addedAt, Instant processedAt, Instant finishedAt) {
}
