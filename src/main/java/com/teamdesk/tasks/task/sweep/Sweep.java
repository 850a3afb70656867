package com.teamdesk.tasks.task.sweep;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

/** Mutable state of one sweep of {@link TaskTimers} on this instance; {@code running} keeps two ticks of it from overlapping. */
final class Sweep {
    final String name;
    final String schedule;
    final AtomicBoolean running = new AtomicBoolean();
    volatile long skipped;
    volatile long runs;
    volatile long failures;
    volatile long consecutiveFailures;
    volatile Instant lastStart;
    volatile Instant lastEnd;
    volatile String lastOutcome;
    volatile int lastHandled;

    Sweep(String name, String schedule) {
        this.name = name;
        this.schedule = schedule;
    }
}
