package com.teamdesk.tasks.task.service;

import com.teamdesk.tasks.task.spi.BackgroundTask;

/**
 * The answer to a create, retry or cancel (R23, R25): the task, the HTTP status of the answer, and
 * whether it is the replay of an earlier request with the same {@code Idempotency-Key}.
 *
 * @param status   202 for create and retry, 200 for cancel; a replay carries the original status
 * @param replayed true when no work was done because the key had been used for this request
 */
public record Submitted(BackgroundTask task, int status, boolean replayed) {
}
