package com.teamdesk.tasks.queue;

import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A {@code Worker}'s processing slots: each runs a fetched job's {@link JobProcessor} on the executor, records
 * its outcome with one script under the job's lock (R6: complete through the {@link Completer}, fail with
 * retry or for good, R4, or defer without an attempt, issue 28), then runs the job fetched in the same round
 * trip, until none was. Logs under the {@code Worker} logger, as before the split.
 *
 * @param scope       the worker's shared parts
 * @param processor   the code run for each job
 * @param executor    runs one task per slot
 * @param slots       the free slots (a slot is given back when its task ends)
 * @param completer   combines the slots' completions
 * @param lockRenewal renews the locks of the jobs being processed
 * @param listeners   the worker's listeners
 * @param closing     released when the worker begins to close
 * @param nextToken   the lock token for the job to fetch with an outcome, or null once the worker is closing
 */
record ProcessingSlots(WorkerScope scope, JobProcessor processor, ExecutorService executor, SlotPool slots,
                       Completer completer, LockRenewal lockRenewal, WorkerListeners listeners,
                       CountDownLatch closing, Supplier<String> nextToken) {

    private static final Logger LOG = Logger.getLogger(WorkerScope.LOGGER);

    ProcessingSlots {
        Objects.requireNonNull(processor, "processor");
        Objects.requireNonNull(executor, "executor");
    }

    /** Hands a job the fetch loop fetched (holding a slot) to a new slot task. */
    void runInNewSlot(FetchedJob fetched) {
        RunningJob first = track(fetched);
        try {
            executor.execute(() -> runSlot(first));
        } catch (RejectedExecutionException e) {
            lockRenewal.untrack(first);
            slots.giveBack();
            LOG.log(Level.SEVERE, e, () -> "worker " + scope.workerId() + ": executor refused job " + first.id()
                    + "; it is left to the stalled check");
            Waits.await(closing, WorkerScope.ERROR_PAUSE_MS);
        }
    }

    /** One processing slot: runs a job, then each job fetched together with the previous outcome. */
    private void runSlot(RunningJob first) {
        try {
            RunningJob next = first;
            while (next != null) {
                next = processOne(next);
            }
        } finally {
            slots.giveBack();
        }
    }

    /** Runs one execution and records its outcome; returns the next job fetched in the same round trip. */
    private RunningJob processOne(RunningJob job) {
        Throwable error = null;
        try {
            processor.process(job);
        } catch (Exception | Error e) {
            error = e;
        }
        lockRenewal.untrack(job); // the finishing script releases the lock
        if (error instanceof JobDeferredException deferred) {
            defer(job, deferred);
            return null; // the slot goes back: the fetch loop asks the fetch gate before it takes more work
        }
        String nextToken = nextToken().get();
        QueueStore.Finish finish;
        String reason = null;
        try {
            if (error == null) {
                finish = completer.complete(job.fetched(), job.progressOnCompletion(), nextToken);
            } else {
                boolean unrecoverable = error instanceof UnrecoverableJobException;
                reason = reasonOf(error);
                long retryDelayMs = unrecoverable ? 0 : job.fetched().backoff().delayMs(job.attemptsMade() + 1);
                finish = scope.store().fail(job.fetched(), reason, unrecoverable, retryDelayMs, nextToken,
                        scope.options().lockDurationMs());
            }
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, e, () -> "worker " + scope.workerId() + ": could not record the outcome of job " + job.id()
                    + "; it is left to the stalled check");
            return null;
        }
        if (finish.lockLost()) {
            String outcome = error == null ? "completed" : reason;
            LOG.warning(() -> "worker " + scope.workerId() + ": lock of job " + job.id() + " was lost; its outcome ("
                    + outcome + ") is dropped and the job is left to the stalled check");
        } else if (error == null) {
            int progress = job.progressOnCompletion();
            if (progress >= 0) {
                listeners.emit(l -> l.progress(job.id(), progress));
            }
            listeners.emit(l -> l.completed(job.id(), job.attemptsMade() + 1));
        } else {
            String why = reason;
            LOG.log(Level.WARNING, error, () -> "worker " + scope.workerId() + ": job " + job.id() + " failed (attemptsMade "
                    + finish.attemptsMade() + ", exhausted " + finish.exhausted() + "): " + why);
            listeners.emit(l -> l.failed(job.id(), finish.attemptsMade(), finish.exhausted(), why));
        }
        return finish.next() == null ? null : track(finish.next());
    }

    /** Issue 28: back to delayed under the lock, no attempt counted; a lost lock leaves it to the stalled check. */
    private void defer(RunningJob job, JobDeferredException deferred) {
        String reason = reasonOf(deferred);
        boolean moved;
        try {
            moved = scope.store().defer(job.fetched(), deferred.delayMs(), reason);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, e, () -> "worker " + scope.workerId() + ": could not defer job " + job.id()
                    + "; it is left to the stalled check");
            return;
        }
        if (!moved) {
            LOG.warning(() -> "worker " + scope.workerId() + ": lock of job " + job.id() + " was lost; its deferral is dropped"
                    + " and the job is left to the stalled check");
            return;
        }
        listeners.emit(l -> l.deferred(job.id(), deferred.delayMs(), reason));
    }

    /** Starts renewing the lock of a fetched job; @return the job as the processor sees it */
    RunningJob track(FetchedJob fetched) {
        RunningJob job = new RunningJob(fetched, scope.workerId(), scope.store(), listeners);
        lockRenewal.track(job);
        return job;
    }

    /** The failed reason stored in Redis: the message, never a stack trace. */
    private static String reasonOf(Throwable error) {
        String message = error.getMessage();
        return message == null || message.isBlank() ? error.getClass().getName() : message;
    }
}
