package com.teamdesk.tasks.queue;

import java.time.Instant;

/**
 * One rate limit of a queue in the current window of the Redis clock (issue 30, {@link Queue#rateStatus()}).
 *
 * @param rateKey   the rate key ({@link JobOptions#rateKey()})
 * @param limit     the most jobs of it that start per window
 * @param windowMs  the window's length, ms
 * @param started   jobs of it that started in the current window
 * @param held      jobs of it held back in the current window, delayed until it ends
 * @param windowEnd when the current window ends: the next job of it may start then
 */
public record RateStatus(String rateKey, int limit, long windowMs, long started, long held, Instant windowEnd) {

    /** @return true when no more jobs of the key start before {@link #windowEnd} */
    public boolean full() {
        return started >= limit;
    }
}
