package com.teamdesk.tasks.task.spi;

/**
 * A named place in the production code path of an execution where tests can pause it or inject a fault (see
 * {@link PausePoints}). Each sits right at the statement it names, so a test paused there sees the real database
 * state. The engine's points are {@link EnginePausePoint}; a kind declares its own in its package (an enum
 * implementing this interface) and reaches them through {@link Execution#pause}.
 */
public interface PausePoint {
    /** @return the point's name, e.g. {@code AFTER_CLAIM} (what tests and their messages show) */
    String name();
}
