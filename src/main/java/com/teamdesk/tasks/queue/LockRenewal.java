package com.teamdesk.tasks.queue;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * R6 lock renewal of one worker: the jobs it runs now, and the loop that extends their locks every
 * {@link WorkerOptions#lockRenewMs()} in one script for all of them. Keeps running while the worker drains
 * ({@code close}) and stops on the worker's stop signal. With {@link WorkerOptions#lockRenewal()} false the
 * loop returns at once and locks expire after {@link WorkerOptions#lockDurationMs()}.
 */
final class LockRenewal implements Runnable {

    private static final Logger LOG = Logger.getLogger(LockRenewal.class.getName());

    private final WorkerScope scope;
    /** Executions whose locks are extended, by job id. */
    private final Map<String, RunningJob> running = new ConcurrentHashMap<>();

    LockRenewal(WorkerScope scope) {
        this.scope = scope;
    }

    /** Starts renewing the lock of {@code job} (it was just fetched). */
    void track(RunningJob job) {
        running.put(job.id(), job);
    }

    /** Stops renewing the lock of {@code job} (its outcome is being recorded, which releases the lock). */
    void untrack(RunningJob job) {
        running.remove(job.id(), job);
    }

    /** @return ids of the jobs whose locks are renewed now */
    Set<String> runningIds() {
        return Set.copyOf(running.keySet());
    }

    @Override
    public void run() {
        if (!scope.options().lockRenewal()) {
            return;
        }
        while (!scope.awaitStop(scope.options().lockRenewMs())) {
            if (!running.isEmpty()) {
                renewOnce();
            }
        }
    }

    private void renewOnce() {
        List<RunningJob> held = new ArrayList<>(running.values());
        List<Map.Entry<String, String>> tokens = new ArrayList<>(held.size());
        for (RunningJob j : held) {
            tokens.add(new AbstractMap.SimpleImmutableEntry<>(j.id(), j.token()));
        }
        try {
            for (String lostId : scope.store().extendLocks(tokens, scope.options().lockDurationMs())) {
                RunningJob j = running.get(lostId);
                if (j != null && held.contains(j)) { // not just finished
                    LOG.warning(() -> "worker " + scope.workerId() + ": lock of job " + lostId
                            + " was lost while it ran; its outcome will be refused");
                    running.remove(lostId, j);
                }
            }
        } catch (RuntimeException e) {
            scope.loopFailed(LOG, e, "renewing locks (every " + scope.options().lockRenewMs() + " ms)");
        }
    }
}
