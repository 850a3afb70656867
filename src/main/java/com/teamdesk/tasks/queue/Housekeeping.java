package com.teamdesk.tasks.queue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The periodic queue-wide checks one worker takes part in: the R6 stalled check every
 * {@link WorkerOptions#stalledIntervalMs()} and the R5 retention trim every
 * {@link WorkerOptions#retentionTrimIntervalMs()}, each run by one worker per interval across the queue
 * (a guard key set inside the script). Every run is wrapped in log-and-continue.
 *
 * <p>Each guard key is set inside the script, a few ms after this loop's clock reading. So that the worker's
 * own next attempt never finds its own guard alive (which made both run only every second interval), the
 * next attempt is scheduled from the clock reading taken after the script returned, and the guard lives
 * slightly shorter than the interval ({@link #guardTtlMs}).
 */
final class Housekeeping implements Runnable {

    /** Failed reason of a job that stalled more than {@link WorkerOptions#maxStalledCount()} times. */
    static final String STALLED_REASON = "job stalled more than allowable limit";

    private static final Logger LOG = Logger.getLogger(Housekeeping.class.getName());

    private final WorkerScope scope;
    private final WorkerListeners listeners;

    Housekeeping(WorkerScope scope, WorkerListeners listeners) {
        this.scope = scope;
        this.listeners = listeners;
    }

    @Override
    public void run() {
        long stalledIntervalNanos = TimeUnit.MILLISECONDS.toNanos(scope.options().stalledIntervalMs());
        long trimIntervalNanos = TimeUnit.MILLISECONDS.toNanos(scope.options().retentionTrimIntervalMs());
        long nextStalledCheck = System.nanoTime();
        long nextTrim = System.nanoTime();
        while (!scope.awaitStop(
                TimeUnit.NANOSECONDS.toMillis(Math.min(nextStalledCheck, nextTrim) - System.nanoTime()))) {
            if (System.nanoTime() - nextStalledCheck >= 0) {
                checkStalled();
                nextStalledCheck = System.nanoTime() + stalledIntervalNanos;
            }
            if (System.nanoTime() - nextTrim >= 0) {
                trimRetention();
                nextTrim = System.nanoTime() + trimIntervalNanos;
            }
        }
    }

    /**
     * TTL of a housekeeping guard for a check run every {@code intervalMs}: the interval less 2 ms (Redis
     * compares expiry in whole ms) and 1 % (clock rate differences between this JVM and a remote Redis), so
     * the guard has always expired when its own worker comes back one interval later.
     */
    static long guardTtlMs(long intervalMs) {
        return Math.max(1, intervalMs - 2 - intervalMs / 100);
    }

    private void trimRetention() {
        // once per interval the worker's next finishes write their retention to meta again (it may have been lost)
        scope.store().forgetRecordedRetention();
        try {
            int removed = scope.store().trimRetention(guardTtlMs(scope.options().retentionTrimIntervalMs()));
            if (removed > 0) {
                LOG.fine(() -> "worker " + scope.workerId() + ": retention removed " + removed
                        + " finished job records");
            }
        } catch (RuntimeException e) {
            scope.loopFailed(LOG, e, "retention trim");
        }
    }

    private void checkStalled() {
        List<QueueStore.Stalled> stalled;
        try {
            WorkerOptions options = scope.options();
            stalled = scope.store().moveStalledJobs(options.maxStalledCount(), guardTtlMs(options.stalledIntervalMs()),
                    STALLED_REASON);
        } catch (RuntimeException e) {
            scope.loopFailed(LOG, e, "stalled check");
            return;
        }
        for (QueueStore.Stalled s : stalled) {
            LOG.warning(() -> "worker " + scope.workerId() + ": job " + s.id()
                    + " stalled (lock expired while active); "
                    + (s.failed() ? "failed: " + STALLED_REASON : "moved back to waiting"));
            listeners.emit(l -> l.stalled(s.id()));
            if (s.failed()) {
                listeners.emit(l -> l.failed(s.id(), s.attemptsMade(), true, STALLED_REASON));
            }
        }
    }
}
