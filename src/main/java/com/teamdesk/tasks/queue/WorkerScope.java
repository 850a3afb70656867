package com.teamdesk.tasks.queue;

import java.util.concurrent.CountDownLatch;

/**
 * What every part of one worker shares: its storage layer, settings, id (for log lines and keys) and the
 * stop signal its periodic loops wait on.
 *
 * @param store      the worker's storage layer
 * @param options    the worker's settings
 * @param workerId   the worker's id
 * @param stopSignal released when the worker stops
 */
record WorkerScope(QueueStore store, WorkerOptions options, String workerId, CountDownLatch stopSignal) {

    /** Waits up to {@code ms} for the stop signal; @return true when the worker stopped. */
    boolean awaitStop(long ms) {
        return Waits.await(stopSignal, ms);
    }

    /** @return true once the worker stopped */
    boolean stopped() {
        return stopSignal.getCount() == 0;
    }
}
