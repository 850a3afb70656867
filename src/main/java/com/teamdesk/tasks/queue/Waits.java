package com.teamdesk.tasks.queue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** The one way the worker's loops wait: on a latch (stop or close signal), never {@code Thread.sleep}. */
final class Waits {

    private Waits() {
    }

    /**
     * Waits up to {@code ms} for {@code signal}.
     *
     * @param signal released when the waiting loop should stop
     * @param ms     longest wait in milliseconds; negative counts as 0
     * @return true when the signal was released (or the thread was interrupted, which the caller treats alike)
     */
    static boolean await(CountDownLatch signal, long ms) {
        try {
            return signal.await(Math.max(0, ms), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }
}
