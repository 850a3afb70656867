package com.teamdesk.tasks.queue;

/**
 * How long finished (completed or failed) job records are kept (R5): a record is removed once it is older
 * than {@code maxAgeSeconds} OR no longer among the newest {@code maxCount} records of its set, whichever
 * removes it first. Waiting, delayed and active jobs are never touched by retention.
 *
 * @param maxAgeSeconds maximum age in seconds since the job finished, {@code >= 0} (0 removes at once)
 * @param maxCount      how many of the newest finished records to keep, {@code >= 0} (0 keeps none)
 */
public record Retention(long maxAgeSeconds, int maxCount) {

    /**
     * @throws IllegalArgumentException if a value is negative
     */
    public Retention {
        if (maxAgeSeconds < 0) {
            throw new IllegalArgumentException("maxAgeSeconds must be >= 0: " + maxAgeSeconds);
        }
        if (maxCount < 0) {
            throw new IllegalArgumentException("maxCount must be >= 0: " + maxCount);
        }
    }
}
