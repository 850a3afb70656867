package com.teamdesk.tasks.task.sweep;

import java.time.Instant;

/**
 * What one sweep did on this instance: runs and failures since startup, consecutive failures,
 * and the last run's start, end, outcome and rows handled. Times come from the application
 * clock; {@code lastOutcome} is {@code "ok"}, {@code "failed: <error>"} or null before the first run.
 * {@code schedule} is the timer's schedule in words, {@code skipped} counts ticks skipped because the sweep
 * was paused (issue 14) and {@code paused} says whether it is paused now (for every instance).
 */
public record SweepStatus(String name, long runs, long failures, long consecutiveFailures, Instant lastStart,
        Instant lastEnd, String lastOutcome, int lastHandled, Instant nextTimeout, String schedule, long skipped,
        boolean paused) {
}
