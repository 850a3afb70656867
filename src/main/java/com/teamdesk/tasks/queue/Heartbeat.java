package com.teamdesk.tasks.queue;

import java.lang.management.ManagementFactory;
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

    private final WorkerScope scope;
    private final IntSupplier busySlots;
    /** Permits ask the loop to publish at once (a missing key, or the worker stopping). */
    private final Semaphore beatRequests = new Semaphore(0);
    /** {@link System#nanoTime()} of the last successful write; valid once {@link #beaten}. */
    private volatile long lastBeatNanos;
    private volatile boolean beaten;

    Heartbeat(WorkerScope scope, IntSupplier busySlots) {
        this.scope = scope;
        this.busySlots = busySlots;
    }

    @Override
    public void run() {
        String who = ManagementFactory.getRuntimeMXBean().getName();
        long startedAt = System.currentTimeMillis();
        long periodMs = Math.max(1, scope.options().heartbeatTtlMs() / 3);
        do {
            try {
                scope.store().heartbeat(scope.workerId(), scope.options().heartbeatTtlMs(),
                        info(who, startedAt, true).toJson());
                lastBeatNanos = System.nanoTime();
                beaten = true;
                scope.redisOutage().ended();
            } catch (RuntimeException e) {
                scope.loopFailed(LOG, e, "heartbeat");
            }
        } while (!awaitBeatRequest(periodMs));
        try {
            scope.store().removeHeartbeat(scope.workerId(), info(who, startedAt, false).toJson());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, e, () -> "worker " + scope.workerId()
                    + ": could not delete its heartbeat; it expires in " + scope.options().heartbeatTtlMs() + " ms");
        }
    }

    /** Asks the loop to publish at once (also used to wake it when the worker stops). */
    void requestBeat() {
        beatRequests.release();
    }

    /** @return true when the last successful write is younger than the heartbeat TTL */
    boolean recent() {
        long ttlNanos = TimeUnit.MILLISECONDS.toNanos(scope.options().heartbeatTtlMs());
        return beaten && System.nanoTime() - lastBeatNanos < ttlNanos;
    }

    private WorkerInfo info(String who, long startedAt, boolean live) {
        return new WorkerInfo(scope.workerId(), who, startedAt, scope.options().concurrency(), busySlots.getAsInt(),
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
        return scope.stopped();
    }
}
