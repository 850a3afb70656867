package com.teamdesk.tasks.queue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * R22 heartbeat of one worker: publishes {@code <p>:<q>:workers:<id>} every third of
 * {@link WorkerOptions#heartbeatTtlMs()}, and at once when {@link #requestBeat()} asks (the key was found
 * missing); deletes it when the worker stops. Remembers its last successful write, from which the worker
 * judges its own liveness.
 */
final class Heartbeat implements Runnable {

    private static final Logger LOG = Logger.getLogger(Heartbeat.class.getName());

    private final QueueStore store;
    private final WorkerOptions options;
    private final String workerId;
    private final CountDownLatch stopSignal;
    private final IntSupplier busySlots;
    /** Permits ask the loop to publish at once (a missing key, or the worker stopping). */
    private final Semaphore beatRequests = new Semaphore(0);
    /** {@link System#nanoTime()} of the last successful write; valid once {@link #beaten}. */
    private volatile long lastBeatNanos;
    private volatile boolean beaten;

    Heartbeat(QueueStore store, WorkerOptions options, String workerId, CountDownLatch stopSignal,
              IntSupplier busySlots) {
        this.store = store;
        this.options = options;
        this.workerId = workerId;
        this.stopSignal = stopSignal;
        this.busySlots = busySlots;
    }

    @Override
    public void run() {
        String who = ManagementFactory.getRuntimeMXBean().getName();
        long startedAt = System.currentTimeMillis();
        long periodMs = Math.max(1, options.heartbeatTtlMs() / 3);
        do {
            try {
                store.heartbeat(workerId, options.heartbeatTtlMs(), info(who, startedAt, true).toJson());
                lastBeatNanos = System.nanoTime();
                beaten = true;
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, e, () -> "worker " + workerId + ": heartbeat failed");
            }
        } while (!awaitBeatRequest(periodMs));
        try {
            store.removeHeartbeat(workerId, info(who, startedAt, false).toJson());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, e, () -> "worker " + workerId + ": could not delete its heartbeat; it expires in "
                    + options.heartbeatTtlMs() + " ms");
        }
    }

    /** Asks the loop to publish at once (also used to wake it when the worker stops). */
    void requestBeat() {
        beatRequests.release();
    }

    /** @return true when the last successful write is younger than the heartbeat TTL */
    boolean recent() {
        return beaten && System.nanoTime() - lastBeatNanos < TimeUnit.MILLISECONDS.toNanos(options.heartbeatTtlMs());
    }

    private WorkerInfo info(String who, long startedAt, boolean live) {
        return new WorkerInfo(workerId, who, startedAt, options.concurrency(), busySlots.getAsInt(),
                System.currentTimeMillis(), live);
    }

    /** Waits up to {@code ms} for a beat request; @return true when the worker stopped. */
    private boolean awaitBeatRequest(long ms) {
        try {
            if (beatRequests.tryAcquire(ms, TimeUnit.MILLISECONDS)) {
                beatRequests.drainPermits(); // requests that came meanwhile are answered by this one beat
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
        return stopSignal.getCount() == 0;
    }
}
