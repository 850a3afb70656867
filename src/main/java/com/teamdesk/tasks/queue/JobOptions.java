package com.teamdesk.tasks.queue;

import java.util.Objects;

/**
 * Per-job options, stored with the job when it is added.
 *
 * @param attempts          maximum executions that may end in an error, the first included (R4), {@code >= 1}
 * @param backoff           delay before each retry (R4)
 * @param delayMs           initial delay before the first execution, in milliseconds, {@code >= 0}
 * @param removeOnComplete  retention of the completed record (R5)
 * @param removeOnFail      retention of the failed record (R5)
 */
public record JobOptions(int attempts, Backoff backoff, long delayMs, Retention removeOnComplete,
                         Retention removeOnFail) {

    /**
     * @throws IllegalArgumentException if {@code attempts < 1} or {@code delayMs < 0}
     * @throws NullPointerException     if an object argument is null
     */
    public JobOptions {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be >= 1: " + attempts);
        }
        if (delayMs < 0) {
            throw new IllegalArgumentException("delayMs must be >= 0: " + delayMs);
        }
        Objects.requireNonNull(backoff, "backoff");
        Objects.requireNonNull(removeOnComplete, "removeOnComplete");
        Objects.requireNonNull(removeOnFail, "removeOnFail");
    }

    /**
     * The defaults of R4/R5: 3 attempts, exponential backoff from 2000 ms, no delay, completed records kept
     * 86400 s or the newest 1000, failed records kept 604800 s or the newest 1000.
     *
     * @return the default options
     */
    public static JobOptions defaults() {
        return new JobOptions(3, Backoff.exponential(2000), 0,
                new Retention(86_400, 1000), new Retention(604_800, 1000));
    }

    /**
     * @param a maximum executions, {@code >= 1}
     * @return a copy with {@code attempts = a}
     * @throws IllegalArgumentException if {@code a < 1}
     */
    public JobOptions withAttempts(int a) {
        return new JobOptions(a, backoff, delayMs, removeOnComplete, removeOnFail);
    }

    /**
     * @param b the retry backoff
     * @return a copy with {@code backoff = b}
     * @throws NullPointerException if {@code b} is null
     */
    public JobOptions withBackoff(Backoff b) {
        return new JobOptions(attempts, b, delayMs, removeOnComplete, removeOnFail);
    }

    /**
     * @param d initial delay in milliseconds, {@code >= 0}
     * @return a copy with {@code delayMs = d}
     * @throws IllegalArgumentException if {@code d < 0}
     */
    public JobOptions withDelayMs(long d) {
        return new JobOptions(attempts, backoff, d, removeOnComplete, removeOnFail);
    }

    /**
     * @param r retention of the completed record
     * @return a copy with {@code removeOnComplete = r}
     * @throws NullPointerException if {@code r} is null
     */
    public JobOptions withRemoveOnComplete(Retention r) {
        return new JobOptions(attempts, backoff, delayMs, r, removeOnFail);
    }

    /**
     * @param r retention of the failed record
     * @return a copy with {@code removeOnFail = r}
     * @throws NullPointerException if {@code r} is null
     */
    public JobOptions withRemoveOnFail(Retention r) {
        return new JobOptions(attempts, backoff, delayMs, removeOnComplete, r);
    }
}
