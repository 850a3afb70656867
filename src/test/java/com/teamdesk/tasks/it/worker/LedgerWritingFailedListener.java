package com.teamdesk.tasks.it.worker;

import com.teamdesk.tasks.it.engine.EngineFixtures;
import com.teamdesk.tasks.queue.WorkerListener;
import com.teamdesk.tasks.task.spi.TaskJobId;

/**
 * TEST-ONLY. The bug R21 forbids, re-created so that {@code RealWorkerIT} can prove it catches it: a
 * {@code failed} listener that writes the ledger. On an exhausted failure it marks the task FAILED by
 * {@code taskId + run} — which is not a lease: it cannot tell the failed execution from a newer one
 * that took the run over. Never deployed outside the test WAR; the production listener
 * ({@code TaskQueueListener}) only logs.
 */
public final class LedgerWritingFailedListener implements WorkerListener {
    /** The {@code lastError} this listener writes. */
    public static final String MESSAGE = "The queue gave up on this task.";

    private final EngineFixtures fx;

    /** @param fx writes through the application's datasource */
    public LedgerWritingFailedListener(EngineFixtures fx) {
        this.fx = fx;
    }

    @Override
    public void failed(String jobId, int attemptsMade, boolean exhausted, String reason) {
        if (!exhausted) {
            return;
        }
        TaskJobId job = TaskJobId.parse(jobId);
        fx.exec("UPDATE background_task SET status = 'FAILED', execution_id = NULL, last_error = ?, updated_at = now()"
                + " WHERE id = ? AND run = ? AND status IN ('WAITING', 'RUNNING')", MESSAGE, job.taskId(), job.run());
    }

    @Override
    public String toString() {
        return "ledger-writing failed listener (test-only bug)";
    }
}
