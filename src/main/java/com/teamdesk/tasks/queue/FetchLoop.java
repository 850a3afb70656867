package com.teamdesk.tasks.queue;

import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A {@code Worker}'s fetch loop: while the worker runs, asks the {@link FetchGate}, takes a free slot, fetches
 * one job (locked for a fresh token) and hands it to the {@link ProcessingSlots}; when nothing is due it blocks
 * in {@code BZPOPMIN} on the queue's marker (no polling), at most until the next delayed job is due and at most
 * {@value #MAX_BLOCK_MS} ms. Deletes the worker's wake key when it ends. Logs under the {@code Worker}
 * logger, as before the split.
 *
 * <p>A reserved loop (issue 30, R42: {@code minPriority > 0}) does the same for the worker's reserved slots, but
 * fetches only jobs of priority {@code >= minPriority} and blocks on the urgent marker instead, which only a job
 * of priority {@code > 0} (or a reserved fetch that took one) sets: while only lower jobs wait it makes one fetch
 * per wake-up, never a loop of them.
 */
final class FetchLoop implements Runnable {

    /** Longest single blocking wait of the fetch loop, in ms (self-heals a lost wake-up marker). */
    static final long MAX_BLOCK_MS = 5_000;

    /** How late Redis may time out a blocking command with the default {@code hz 10}, in ms. */
    static final long REDIS_TIMEOUT_SLACK_MS = 100;

    private static final Logger LOG = Logger.getLogger(WorkerScope.LOGGER);
    /** Longest single wait of the fetch loop at a closed {@link FetchGate}, in ms. */
    private static final long GATE_WAIT_MS = 1_000;

    private final WorkerScope scope;
    private final SlotPool slots;
    private final ProcessingSlots processing;
    private final CountDownLatch closing;
    private final String wakeKey;
    private final BooleanSupplier running;
    private final Supplier<String> newToken;
    private final int minPriority;
    /** Fetch scripts called, for tests (a loop that spins shows here). */
    private final AtomicLong fetches = new AtomicLong();
    private volatile FetchGate gate = maxWaitMs -> true;

    /**
     * @param closing  released when the worker begins to close (ends the loop's waits)
     * @param wakeKey  the key whose marker wakes this loop
     * @param running  whether the worker still runs
     * @param newToken    a fresh lock token per fetch
     * @param minPriority 0 for the general loop (any job); {@code > 0} for the reserved loop: the least priority it takes
     */
    FetchLoop(WorkerScope scope, SlotPool slots, ProcessingSlots processing, CountDownLatch closing, String wakeKey,
              BooleanSupplier running, Supplier<String> newToken, int minPriority) {
        this.minPriority = minPriority;
        this.scope = Objects.requireNonNull(scope, "scope");
        this.slots = Objects.requireNonNull(slots, "slots");
        this.processing = Objects.requireNonNull(processing, "processing");
        this.closing = Objects.requireNonNull(closing, "closing");
        this.wakeKey = Objects.requireNonNull(wakeKey, "wakeKey");
        this.running = Objects.requireNonNull(running, "running");
        this.newToken = Objects.requireNonNull(newToken, "newToken");
    }

    /** @return how many fetch scripts this loop has called */
    long fetches() {
        return fetches.get();
    }

    /** Sets the gate asked before each fetch ({@code Worker.setFetchGate}). */
    void setGate(FetchGate gate) {
        this.gate = Objects.requireNonNull(gate, "gate");
    }

    @Override
    public void run() {
        try {
            while (running.getAsBoolean()) {
                if (Thread.currentThread().isInterrupted()) {
                    LOG.severe(() -> "worker " + scope.workerId() + ": fetch loop interrupted (executor shut down?); "
                            + "no more jobs are taken");
                    break;
                }
                if (!gateOpen()) {
                    continue; // the gate is closed: asked again (the loop ends when the worker closes)
                }
                if (!slots.take()) {
                    continue; // closed (the loop ends) or interrupted (logged above)
                }
                Fetch fetch;
                try {
                    fetches.incrementAndGet();
                    fetch = minPriority > 0
                            ? scope.store().moveUrgentToActive(newToken.get(), scope.options().lockDurationMs(), minPriority)
                            : scope.store().moveToActive(newToken.get(), scope.options().lockDurationMs());
                    scope.redisOutage().ended();
                } catch (RuntimeException e) {
                    slots.giveBack();
                    scope.loopFailed(LOG, e, "fetching jobs (retried every " + WorkerScope.ERROR_PAUSE_MS + " ms)");
                    Waits.await(closing, WorkerScope.ERROR_PAUSE_MS);
                    continue;
                }
                if (fetch.job() != null) {
                    processing.runInNewSlot(fetch.job());
                } else {
                    slots.giveBack();
                    awaitWork(fetch.nextDueInMs());
                }
            }
        } finally {
            try {
                scope.store().deleteKey(wakeKey);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, e, () -> "worker " + scope.workerId() + ": could not delete its wake key " + wakeKey);
            }
        }
    }

    /**
     * Blocks until a marker announces work, this worker is woken, or the next delayed job is due. Redis
     * times out blocking commands only about {@code hz} times a second (every 100 ms by default), so Redis
     * blocks until shortly before the due time and the last stretch is waited here, which keeps retries
     * and delays on time; a job added during that stretch (at most {@value #REDIS_TIMEOUT_SLACK_MS} ms) waits
     * for it to end.
     */
    private void awaitWork(long nextDueInMs) {
        if (nextDueInMs >= 0 && nextDueInMs <= REDIS_TIMEOUT_SLACK_MS) {
            Waits.await(closing, nextDueInMs);
            return;
        }
        long timeoutMs = nextDueInMs < 0 ? MAX_BLOCK_MS : Math.min(nextDueInMs - REDIS_TIMEOUT_SLACK_MS, MAX_BLOCK_MS);
        try {
            boolean reserved = minPriority > 0;
            String popped = reserved ? scope.store().awaitUrgentMarker(timeoutMs, wakeKey)
                    : scope.store().awaitMarker(timeoutMs, wakeKey);
            scope.redisOutage().ended();
            if (popped != null && !popped.equals(wakeKey) && !running.getAsBoolean()) {
                // leave the wake-up for a worker that will act on it
                if (reserved) {
                    scope.store().restoreUrgentMarker();
                } else {
                    scope.store().restoreMarker();
                }
            }
        } catch (RuntimeException e) {
            scope.loopFailed(LOG, e, "waiting for jobs (retried every " + WorkerScope.ERROR_PAUSE_MS + " ms)");
            Waits.await(closing, WorkerScope.ERROR_PAUSE_MS);
        }
    }

    /** Asks the fetch gate, at most {@value #GATE_WAIT_MS} ms at a time so that close() is seen promptly. */
    private boolean gateOpen() {
        try {
            if (gate.awaitOpen(GATE_WAIT_MS)) {
                return true;
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, e, () -> "worker " + scope.workerId() + ": the fetch gate failed; fetching anyway");
            return true;
        }
        return false;
    }
}
