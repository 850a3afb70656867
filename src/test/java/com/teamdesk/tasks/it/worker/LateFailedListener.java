package com.teamdesk.tasks.it.worker;

import com.teamdesk.tasks.queue.WorkerListener;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Delivers the first {@code failed} event of one job to {@code delegate} LATE: the worker's thread that
 * emits it waits here until the test calls {@link #release()} (bounded by {@link WorkerEvents#MAX_WAIT_MS}),
 * so whatever the listener under test would write reaches the ledger at the moment the test chooses — e.g.
 * after a new execution took the run over. Every other event passes straight through.
 */
public final class LateFailedListener implements WorkerListener {
    private final String jobId;
    private final WorkerListener delegate;
    private final CountDownLatch arrived = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private final CountDownLatch delivered = new CountDownLatch(1);

    /** @param delegate the listener under test */
    public LateFailedListener(String jobId, WorkerListener delegate) {
        this.jobId = jobId;
        this.delegate = delegate;
    }

    @Override
    public void failed(String id, int attemptsMade, boolean exhausted, String reason) {
        if (id.equals(jobId) && arrived.getCount() > 0) {
            arrived.countDown();
            try {
                released.await(WorkerEvents.MAX_WAIT_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                delegate.failed(id, attemptsMade, exhausted, reason);
            } finally {
                delivered.countDown();
            }
            return;
        }
        delegate.failed(id, attemptsMade, exhausted, reason);
    }

    @Override
    public void completed(String id, int attemptsMade) {
        delegate.completed(id, attemptsMade);
    }

    @Override
    public void stalled(String id) {
        delegate.stalled(id);
    }

    @Override
    public void progress(String id, int percent) {
        delegate.progress(id, percent);
    }

    /** Waits until the job's {@code failed} event is held here. */
    public void awaitArrival() throws InterruptedException {
        if (!arrived.await(WorkerEvents.MAX_WAIT_MS, TimeUnit.MILLISECONDS)) {
            throw new AssertionError("no failed event of " + jobId + " reached the listener");
        }
    }

    /** Lets the held event through to the listener under test (idempotent; call in finally too). */
    public void release() {
        released.countDown();
    }

    /** Waits until the listener under test has returned from the held event. */
    public void awaitDelivered() throws InterruptedException {
        if (!delivered.await(WorkerEvents.MAX_WAIT_MS, TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the listener under test did not return from failed(" + jobId + ")");
        }
    }

    @Override
    public String toString() {
        return "late " + delegate;
    }
}
