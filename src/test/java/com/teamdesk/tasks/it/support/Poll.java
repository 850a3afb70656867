package com.teamdesk.tasks.it.support;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Bounded polling for a sync point the test cannot be told about (a timer tick, a queue record, a row
 * written by the deployed worker): it detects a sync point that never comes; it orders nothing.
 */
public final class Poll {
    private static final long INTERVAL_MS = 20;

    private Poll() {
    }

    /**
     * Polls {@code condition} every 20 ms until it holds.
     *
     * @throws AssertionError with {@code message} when it did not hold within {@code max}
     */
    public static void until(BooleanSupplier condition, Duration max, String message) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(message);
            }
            TimeUnit.MILLISECONDS.sleep(INTERVAL_MS);
        }
    }
}
