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
 * @param group             the job's group for fair share (issue 30): waiting jobs are served round robin
 *                          across groups; null = ungrouped (one lane of its own, FIFO). An opaque name of 1-100
 *                          characters {@code [A-Za-z0-9._-]}: the queue knows no teams
 * @param priority          {@link #MIN_PRIORITY}-{@link #MAX_PRIORITY}, higher first within its group, FIFO within
 *                          a priority; a job is overtaken by at most 1000 x (difference in priority) later jobs of
 *                          its group (aging). Ignored for an ungrouped job
 * @param rateKey           the rate limit the job counts against when it starts ({@link Queue#setRateLimit}), an
 *                          opaque name of 1-200 characters {@code [A-Za-z0-9._:-]}; null = none
 */
public record JobOptions(int attempts, Backoff backoff, long delayMs, Retention removeOnComplete,
                         Retention removeOnFail, String group, int priority, String rateKey) {

    /** Lowest priority, the default. */
    public static final int MIN_PRIORITY = 0;
    /** Highest priority. */
    public static final int MAX_PRIORITY = 10;
    private static final java.util.regex.Pattern GROUP = java.util.regex.Pattern.compile("[A-Za-z0-9._-]{1,100}");
    private static final java.util.regex.Pattern RATE_KEY = java.util.regex.Pattern.compile("[A-Za-z0-9._:-]{1,200}");

    /**
     * @throws IllegalArgumentException if {@code attempts < 1}, {@code delayMs < 0}, the group is not a valid name or
     *                                  the priority is out of range
     * @throws NullPointerException     if backoff or a retention is null
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
        if (group != null && !validGroup(group)) {
            throw new IllegalArgumentException("group must be 1-100 characters of [A-Za-z0-9._-]: " + group);
        }
        if (rateKey != null && !RATE_KEY.matcher(rateKey).matches()) {
            throw new IllegalArgumentException("rateKey must be 1-200 characters of [A-Za-z0-9._:-]: " + rateKey);
        }
        if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
            throw new IllegalArgumentException("priority must be " + MIN_PRIORITY + "-" + MAX_PRIORITY + ": " + priority);
        }
    }

    /** Ungrouped options (no group, priority 0), as before issue 30. */
    public JobOptions(int attempts, Backoff backoff, long delayMs, Retention removeOnComplete, Retention removeOnFail) {
        this(attempts, backoff, delayMs, removeOnComplete, removeOnFail, null, MIN_PRIORITY, null);
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
        return new JobOptions(a, backoff, delayMs, removeOnComplete, removeOnFail, group, priority, rateKey);
    }

    /**
     * @param b the retry backoff
     * @return a copy with {@code backoff = b}
     * @throws NullPointerException if {@code b} is null
     */
    public JobOptions withBackoff(Backoff b) {
        return new JobOptions(attempts, b, delayMs, removeOnComplete, removeOnFail, group, priority, rateKey);
    }

    /**
     * @param d initial delay in milliseconds, {@code >= 0}
     * @return a copy with {@code delayMs = d}
     * @throws IllegalArgumentException if {@code d < 0}
     */
    public JobOptions withDelayMs(long d) {
        return new JobOptions(attempts, backoff, d, removeOnComplete, removeOnFail, group, priority, rateKey);
    }

    /**
     * @param r retention of the completed record
     * @return a copy with {@code removeOnComplete = r}
     * @throws NullPointerException if {@code r} is null
     */
    public JobOptions withRemoveOnComplete(Retention r) {
        return new JobOptions(attempts, backoff, delayMs, r, removeOnFail, group, priority, rateKey);
    }

    /**
     * @param r retention of the failed record
     * @return a copy with {@code removeOnFail = r}
     * @throws NullPointerException if {@code r} is null
     */
    public JobOptions withRemoveOnFail(Retention r) {
        return new JobOptions(attempts, backoff, delayMs, removeOnComplete, r, group, priority, rateKey);
    }

    /**
     * @param g the group (see {@link JobOptions}), or null for none
     * @return a copy with {@code group = g}
     * @throws IllegalArgumentException if {@code g} is not a valid group name
     */
    public JobOptions withGroup(String g) {
        return new JobOptions(attempts, backoff, delayMs, removeOnComplete, removeOnFail, g, priority, rateKey);
    }

    /**
     * @param p the priority within the group, {@link #MIN_PRIORITY}-{@link #MAX_PRIORITY}
     * @return a copy with {@code priority = p}
     * @throws IllegalArgumentException if {@code p} is out of range
     */
    public JobOptions withPriority(int p) {
        return new JobOptions(attempts, backoff, delayMs, removeOnComplete, removeOnFail, group, p, rateKey);
    }

    /** @return true when {@code g} is a valid group name (see {@link JobOptions}) */
    public static boolean validGroup(String g) {
        return g != null && GROUP.matcher(g).matches();
    }

    /** @return true when {@code k} is a valid rate key (see {@link JobOptions}) */
    public static boolean validRateKey(String k) {
        return k != null && RATE_KEY.matcher(k).matches();
    }

    /**
     * @param k the rate limit's name (see {@link JobOptions}), or null for none
     * @return a copy with {@code rateKey = k}
     * @throws IllegalArgumentException if {@code k} is not a valid name
     */
    public JobOptions withRateKey(String k) {
        return new JobOptions(attempts, backoff, delayMs, removeOnComplete, removeOnFail, group, priority, k);
    }
}
