package com.teamdesk.tasks.task;

import java.util.UUID;

/**
 * What a successful claim (R7) hands to one execution: the row it claimed and the fencing token
 * that every later write of this execution must present (R8).
 *
 * @param taskId      task id
 * @param run         the run this execution belongs to
 * @param executionId fresh random fencing token written by the claim
 * @param attempts    this execution's attempt number (queue attemptsMade + 1, R3)
 */
public record Lease(UUID taskId, int run, UUID executionId, int attempts) {
}
