package com.teamdesk.tasks.task;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * R47 (issue 30): background executions yield the database to urgent work. An urgent window is open while this JVM
 * creates a task of an urgent kind (priority at or above R42's {@code teamdesk.worker.reserved-min-priority}: its
 * permission read, INSERT and commit) or runs an urgent execution (from its claim to its end). Before each of its
 * database statements that starts new work (a batch's {@code COPY}, the result's write), a background body (R46)
 * calls {@link #yieldToUrgent()}: while any urgent window is open it waits until none is, for at most
 * {@code teamdesk.worker.background-yield-ms} (default 50 ms) per statement, so PostgreSQL's CPU goes to the urgent
 * statements first and a background body is never held longer than that per statement however much urgent work
 * arrives (it always makes progress). A statement already running is never stopped. {@code 0} turns it off.
 *
 * <p>The windows are this JVM's: an urgent request served by another instance does not hold this one's exports.
 */
@ApplicationScoped
public class UrgentWork {
    private final Object lock = new Object();
    /**
     * Urgent windows open now: written under {@link #lock} only; volatile so that {@link #yieldToUrgent()} reads it
     * without the lock when none is open (every export statement, every background POST).
     */
    private volatile int open;
    /** Guarded by {@link #lock}: background bodies waiting in {@link #yieldToUrgent()}. */
    private int waiting;
    private final AtomicLong yields = new AtomicLong();
    private final AtomicLong yieldedNanos = new AtomicLong();

    @Inject
    @ConfigProperty(name = "teamdesk.worker.background-yield-ms", defaultValue = "50")
    long yieldMs;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.reserved-min-priority", defaultValue = "5")
    int reservedMinPriority;

    /** An open urgent window; {@link #close()} ends it (once; later calls do nothing). */
    public final class Window implements AutoCloseable {
        private boolean closed;

        @Override
        public void close() {
            synchronized (lock) {
                if (closed) {
                    return;
                }
                closed = true;
                open--;
                if (open == 0 && waiting > 0) {
                    lock.notifyAll();
                }
            }
        }
    }

    /** @return whether work of a kind of {@code kindPriority} (0-10) is urgent (holds background statements back) */
    public boolean isUrgent(int kindPriority) {
        return yieldMs > 0 && TaskWorker.isUrgentPriority(kindPriority, reservedMinPriority);
    }

    /**
     * @return whether work of a kind of {@code kindPriority} (0-10; -1 for none) is background work that yields
     *         ({@link #yieldToUrgent()}) to urgent work
     */
    public boolean isBackground(int kindPriority) {
        return yieldMs > 0 && kindPriority >= 0 && !TaskWorker.isUrgentPriority(kindPriority, reservedMinPriority);
    }

    /**
     * Opens an urgent window when {@code kindPriority} is urgent ({@link #isUrgent}); close it in a finally block
     * (try-with-resources).
     *
     * @return the window, or null when the kind is not urgent or yielding is off
     */
    public Window open(int kindPriority) {
        if (!isUrgent(kindPriority)) {
            return null;
        }
        synchronized (lock) {
            open++;
        }
        return new Window();
    }

    /**
     * Called by a background body before a database statement that starts new work: returns at once when no urgent
     * window is open; else waits until none is, at most {@code teamdesk.worker.background-yield-ms}. An interrupt
     * ends the wait at once and stays set on the thread (the body's next lease check or statement sees it).
     *
     * @return the time waited, in nanoseconds (0 when it did not wait)
     */
    public long yieldToUrgent() {
        if (yieldMs <= 0) {
            return 0;
        }
        if (open == 0) {
            return 0; // the common case, without the lock
        }
        long start = System.nanoTime();
        synchronized (lock) {
            if (open == 0) {
                return 0;
            }
            long deadline = start + TimeUnit.MILLISECONDS.toNanos(yieldMs);
            waiting++;
            try {
                for (long left = deadline - start; open > 0 && left > 0; left = deadline - System.nanoTime()) {
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                waiting--;
            }
        }
        long waited = System.nanoTime() - start;
        yields.incrementAndGet();
        yieldedNanos.addAndGet(waited);
        return waited;
    }

    /** @return the urgent windows open now */
    public int openWindows() {
        return open;
    }

    /** @return the background statements waiting in {@link #yieldToUrgent()} now */
    public int waiting() {
        synchronized (lock) {
            return waiting;
        }
    }

    /** @return how many times a background statement waited for urgent work since start */
    public long yields() {
        return yields.get();
    }

    /** @return the time background statements waited for urgent work since start, in nanoseconds */
    public long yieldedNanos() {
        return yieldedNanos.get();
    }
}
