package com.teamdesk.tasks.queue;

import java.util.logging.Level;
import java.util.logging.Logger;

import java.util.concurrent.CountDownLatch;

/**
 * What every part of one worker shares: its storage layer, settings, id (for log lines and keys) and the
 * stop signal its periodic loops wait on.
 *
 * @param store      the worker's storage layer
 * @param options    the worker's settings
 * @param workerId   the worker's id
 * @param stopSignal released when the worker stops
 * @param redisOutage the worker's one log of Redis connection failures (issue 28: a line when an outage begins
 *                   and one when it ends, whichever loop sees them)
 */
record WorkerScope(QueueStore store, WorkerOptions options, String workerId, CountDownLatch stopSignal,
                   OutageLog redisOutage) {

    /** The logger of a worker and its parts, one name as before they were split: {@code ...queue.Worker}. */
    static final String LOGGER = WorkerScope.class.getPackageName() + ".Worker";

    /** Pause of a loop after a Redis error before it tries again, in ms. */
    static final long ERROR_PAUSE_MS = 1_000;

    /**
     * Logs a failure of one of the worker's loops: a Redis connection failure through {@link #redisOutage}
     * (one line per outage), anything else at SEVERE with its stack trace, as before.
     */
    void loopFailed(Logger log, RuntimeException e, String what) {
        if (RedisFaults.isConnectionFailure(e)) {
            redisOutage.failed(e, what + " failed; the worker retries");
        } else {
            log.log(Level.SEVERE, e, () -> "worker " + workerId + ": " + what + " failed");
        }
    }

    /** Waits up to {@code ms} for the stop signal; @return true when the worker stopped. */
    boolean awaitStop(long ms) {
        return Waits.await(stopSignal, ms);
    }

    /** @return true once the worker stopped */
    boolean stopped() {
        return stopSignal.getCount() == 0;
    }
}
