package com.teamdesk.tasks.task.fairshare;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * R47 (issue 30): background executions yield the database to urgent work. An urgent window is open while this JVM
 * creates a task of an urgent kind (priority at or above R42's {@code teamdesk.worker.reserved-min-priority}: its
 * permission read, INSERT and commit) or runs an urgent execution (from its claim to its end). Before each of its
 * database statements that starts new work (a batch's {@code COPY}, the result's write), a background body (R46)
 * calls {@link #yieldToUrgent()}: while any urgent window is open it waits until none is, for at most
 * {@code teamdesk.worker.background-yield-ms} per statement, so PostgreSQL's CPU goes to the urgent statements first
 * and a background body is never held longer than that per statement however much urgent work arrives (it always
 * makes progress). A statement already running is never stopped. The default {@code 0} turns it off: since R48's
 * bound on background statements ({@link BackgroundStatements}) it bought urgent work nothing measurable on P8 and
 * cost the exports' team a few per cent; an operator whose database has fewer cores than the bound assumes can turn
 * it on (50 ms was its earlier default).
 *
 * <p>The window of an urgent {@code POST} that dispatched its job is not closed with the answer but handed over
 * ({@link #handOver}) to the job's claim ({@link #claimed}): it stays open until this JVM's worker claims the job
 * (whose execution opens a window of its own first) or {@code teamdesk.worker.urgent-handover-ms} (default 100 ms)
 * has passed, whichever comes first. So the background statements held during the request are not all released
 * at the moment the new job is fetched and claimed.
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
    /** Guarded by {@link #lock}: handed-over windows by job id, each with its deadline ({@link System#nanoTime()}). */
    private final Map<String, HandedOver> handedOver = new HashMap<>();
    private final AtomicLong yields = new AtomicLong();
    private final AtomicLong yieldedNanos = new AtomicLong();
    private final AtomicLong handOversClaimed = new AtomicLong();
    private final AtomicLong handOversExpired = new AtomicLong();

    @Inject
    @ConfigProperty(name = "teamdesk.worker.background-yield-ms", defaultValue = "0")
    long yieldMs;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.reserved-min-priority", defaultValue = "5")
    int reservedMinPriority;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.urgent-handover-ms", defaultValue = "100")
    long handoverMs;

    private record HandedOver(Window window, long deadlineNanos) {
    }

    /**
     * An open urgent window; {@link #close()} ends it (once; later calls do nothing), {@link #release()} ends it
     * unless it was handed over to a claim ({@link #handOver}).
     */
    public final class Window implements AutoCloseable {
        private boolean closed;
        /** Guarded by {@link #lock}. */
        private boolean handedOverToClaim;

        /** The owner's end: closes the window unless {@link #handOver} passed it on to its job's claim. */
        public void release() {
            synchronized (lock) {
                if (handedOverToClaim) {
                    return;
                }
            }
            close();
        }

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
        return yieldMs > 0 && UrgentPriority.isUrgentPriority(kindPriority, reservedMinPriority);
    }

    /**
     * @return whether work of a kind of {@code kindPriority} (0-10; -1 for none) is background work that yields
     *         ({@link #yieldToUrgent()}) to urgent work
     */
    public boolean isBackground(int kindPriority) {
        return yieldMs > 0 && kindPriority >= 0 && !UrgentPriority.isUrgentPriority(kindPriority, reservedMinPriority);
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
     * Keeps {@code window} (of a {@code POST} that added job {@code jobId} to the queue) open until {@link #claimed}
     * names the job or {@code teamdesk.worker.urgent-handover-ms} has passed; with a bound of 0 or less it is closed
     * now. A null window does nothing. Another window already handed over for the same job id is closed. Windows past
     * their deadline are closed by the next background statement, {@link #openWindows()} or hand-over, whichever
     * comes first.
     */
    public void handOver(Window window, String jobId) {
        if (window == null) {
            return;
        }
        if (handoverMs <= 0) {
            window.close();
            return;
        }
        HandedOver earlier;
        synchronized (lock) {
            if (window.closed) {
                return;
            }
            long now = System.nanoTime();
            // the jobs claimed by other instances: closed here too, so the map holds at most one bound's hand-overs
            // even on an instance that runs no background statement
            expireHandedOver(now);
            window.handedOverToClaim = true;
            earlier = handedOver.put(jobId, new HandedOver(window, now + TimeUnit.MILLISECONDS.toNanos(handoverMs)));
        }
        if (earlier != null) {
            earlier.window().close();
        }
    }

    /**
     * Called when this JVM's worker claimed job {@code jobId}, after its execution opened its own window: closes the
     * window handed over to that claim, if any is still open.
     */
    public void claimed(String jobId) {
        HandedOver h;
        synchronized (lock) {
            if (handedOver.isEmpty()) {
                return;
            }
            h = handedOver.remove(jobId);
        }
        if (h != null) {
            handOversClaimed.incrementAndGet();
            h.window().close();
        }
    }

    /**
     * Guarded by {@link #lock}: closes the handed-over windows whose deadline passed.
     *
     * @return the earliest deadline still pending ({@link System#nanoTime()}), or {@code Long.MAX_VALUE}
     */
    private long expireHandedOver(long now) {
        long next = Long.MAX_VALUE;
        for (Iterator<HandedOver> it = handedOver.values().iterator(); it.hasNext(); ) {
            HandedOver h = it.next();
            if (h.deadlineNanos() - now <= 0) {
                it.remove();
                handOversExpired.incrementAndGet();
                h.window().close(); // re-entrant on the lock
            } else if (h.deadlineNanos() < next) {
                next = h.deadlineNanos();
            }
        }
        return next;
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
            long expiry = expireHandedOver(start);
            if (open == 0) {
                return 0;
            }
            long deadline = start + TimeUnit.MILLISECONDS.toNanos(yieldMs);
            waiting++;
            try {
                for (long now = start; open > 0 && deadline - now > 0; now = System.nanoTime()) {
                    // wakes at a handed-over window's deadline too, to close it
                    long left = deadline - now;
                    if (expiry != Long.MAX_VALUE) {
                        left = Math.max(1, Math.min(left, expiry - now));
                    }
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                    expiry = expireHandedOver(System.nanoTime());
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

    /** @return the urgent windows open now (handed-over ones past their deadline are closed first) */
    public int openWindows() {
        if (open == 0) {
            return 0;
        }
        synchronized (lock) {
            expireHandedOver(System.nanoTime());
            return open;
        }
    }

    /** @return how many handed-over windows a claim of their job closed since start (not their deadline) */
    public long handOversClaimed() {
        return handOversClaimed.get();
    }

    /**
     * @return how many handed-over windows their deadline closed since start (their job was claimed by another
     *         instance, or not yet); counted when a background statement or {@link #openWindows()} finds them due
     */
    public long handOversExpired() {
        return handOversExpired.get();
    }

    /** @return the handed-over windows still waiting for their job's claim (or their deadline) */
    public int handedOver() {
        synchronized (lock) {
            return handedOver.size();
        }
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
