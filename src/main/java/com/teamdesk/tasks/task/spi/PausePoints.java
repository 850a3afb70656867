package com.teamdesk.tasks.task.spi;

/**
 * Test hook called at each {@link PausePoint}. The production bean ({@link NoPausePoints}) does
 * nothing; an in-server test deploys a CDI {@code @Alternative} that blocks on a gate or throws an
 * injected fault. Implementations must be thread-safe.
 */
public interface PausePoints {
    /**
     * Called when an execution reaches {@code point}.
     *
     * @param point where the execution is
     * @param lease the execution's lease (task id, run, fencing token, attempt)
     * @throws RuntimeException when a test injects a fault at this point
     */
    void reached(PausePoint point, Lease lease);
}
