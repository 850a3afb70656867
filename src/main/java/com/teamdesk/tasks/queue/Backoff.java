package com.teamdesk.tasks.queue;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential retry backoff (R4): the delay before the next execution, after {@code attemptsMade} failed
 * executions, is {@code baseDelayMs * 2^(attemptsMade-1)}, so with the default 2000 ms base about 2 s,
 * then 4 s.
 *
 * @param baseDelayMs delay after the first failure, in milliseconds, {@code >= 0}
 * @param jitter when true, each delay is drawn uniformly from {@code [d/2, d]} (where {@code d} is the
 *               exponential delay) so that many jobs failing together do not retry in lock step
 */
public record Backoff(long baseDelayMs, boolean jitter) {

    /**
     * @throws IllegalArgumentException if {@code baseDelayMs < 0}
     */
    public Backoff {
        if (baseDelayMs < 0) {
            throw new IllegalArgumentException("baseDelayMs must be >= 0: " + baseDelayMs);
        }
    }

    /**
     * Exponential backoff without jitter.
     *
     * @param baseDelayMs delay after the first failure, in milliseconds, {@code >= 0}
     * @return the backoff
     * @throws IllegalArgumentException if {@code baseDelayMs < 0}
     */
    public static Backoff exponential(long baseDelayMs) {
        return new Backoff(baseDelayMs, false);
    }

    /**
     * The delay before the next execution.
     *
     * @param attemptsMade failed executions so far, the one that just failed included ({@code >= 1})
     * @return the delay in milliseconds; saturates at {@link Long#MAX_VALUE} instead of overflowing
     * @throws IllegalArgumentException if {@code attemptsMade < 1}
     */
    public long delayMs(int attemptsMade) {
        if (attemptsMade < 1) {
            throw new IllegalArgumentException("attemptsMade must be >= 1: " + attemptsMade);
        }
        int shift = attemptsMade - 1;
        long delay = shift >= 63 || baseDelayMs > (Long.MAX_VALUE >> shift)
                ? Long.MAX_VALUE
                : baseDelayMs << shift;
        if (jitter && delay > 1) {
            long half = delay / 2;
            delay = half + ThreadLocalRandom.current().nextLong(delay - half + 1);
        }
        return delay;
    }
}
