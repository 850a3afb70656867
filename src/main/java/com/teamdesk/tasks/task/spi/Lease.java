package com.teamdesk.tasks.task.spi;

import java.time.Instant;
import java.util.UUID;

/**
 * What a successful claim (R7) hands to one execution: the row it claimed and the fencing token
 * that every later write of this execution must present (R8).
 *
 * @param taskId      task id
 * @param run         the run this execution belongs to
 * @param executionId fresh random fencing token written by the claim
 * @param attempts    this execution's attempt number (queue attemptsMade + 1, R3)
 * @param deadline    the end of this execution's run time (claim + the kind's timeout, R26); its
 *                    lease-checked writes after it throw {@link RunTimedOut}; null = no limit
 */
public record Lease(UUID taskId, int run, UUID executionId, int attempts, Instant deadline) {

    /** A lease without a run-time limit (tests and tools). */
    public Lease(UUID taskId, int run, UUID executionId, int attempts) {
        this(taskId, run, executionId, attempts, null);
    }
}
