package com.teamdesk.tasks.queue;

import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One WARNING when a dependency starts failing and one INFO, with the outage's length, when it answers again
 * (issue 28): an outage of a minute must not write a log line per retry. Failures in between are logged at
 * {@code FINE}. Thread-safe; {@link #ended()} on the success path costs one volatile read.
 */
public final class OutageLog {
    private final Logger log;
    private final String what;
    /** {@code System.nanoTime()} of the outage's first failure; 0 while there is none. */
    private final AtomicLong since = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();

    /**
     * @param log  where to log
     * @param what the failing dependency as the lines name it, e.g. {@code "worker 1f…: Redis"}
     */
    public OutageLog(Logger log, String what) {
        this.log = log;
        this.what = what;
    }

    /**
     * Records a failure: the first of an outage logs a WARNING with {@code action}, the others FINE.
     *
     * @param error  what failed (its toString is logged, not its stack trace)
     * @param action what the caller does about it, e.g. {@code "retrying every 1000 ms"}
     */
    public void failed(Throwable error, String action) {
        failures.incrementAndGet();
        if (since.compareAndSet(0, Math.max(1, System.nanoTime()))) {
            log.warning(() -> what + " unreachable: " + error + "; " + action + " (one line until it answers again)");
        } else {
            log.log(Level.FINE, () -> what + " still unreachable: " + error);
        }
    }

    /** Records a success: ends an outage with one INFO line (its length and how many failures it saw). */
    public void ended() {
        long start = since.get();
        if (start != 0 && since.compareAndSet(start, 0)) {
            long ms = (System.nanoTime() - start) / 1_000_000;
            long n = failures.getAndSet(0);
            log.info(() -> what + " answers again after " + ms + " ms (" + n + " failed call(s) in between)");
        }
    }

    /** @return whether an outage is going on (a failure with no success since) */
    public boolean ongoing() {
        return since.get() != 0;
    }
}
