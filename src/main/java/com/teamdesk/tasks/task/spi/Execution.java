package com.teamdesk.tasks.task.spi;

import com.teamdesk.tasks.queue.Job;
import com.teamdesk.tasks.queue.LockLostException;
import io.opentelemetry.api.trace.Span;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One execution of a run, as handed to a {@link TaskKindHandler#run}: the claimed row, the lease, the queue
 * job, and the ways to report progress and reach pause points.
 */
public final class Execution {
    private static final Logger LOG = Logger.getLogger(Execution.class.getName());

    private final BackgroundTask task;
    private final Lease lease;
    private final Job job;
    private final ExecutionLedger ledger;
    private final Clock clock;
    private final PausePoints pausePoints;
    private final ChildSpans spans;
    /** The queue lock was lost: later progress reports to the queue can only fail, so none are sent. */
    private volatile boolean queueLockLost;
    /** Issue 52: {@link #complete} was called, and what its statement said of the run's dependents. */
    private volatile boolean completed;
    private volatile boolean releasesOthers;
    /** The last queue progress report failed: further failures in a row are logged at FINE only. */
    private volatile boolean queueReportFailing;
    /** Monotonic time source of {@link #checkLeaseIfDue}, in nanoseconds. */
    private final LongSupplier ticker;
    /** Longest stretch of work between two lease-checked writes (R23), in nanoseconds. */
    private final long leaseCheckNanos;
    /** When the last lease-checked write of this execution was made ({@link #ticker} time). */
    private long lastLeaseCheck;
    /** The last progress written. */
    private int lastProgress;
    /** R48/R47: the permits of this execution's statements ({@link StatementPermits#NONE} for an urgent kind). */
    private final StatementPermits statements;

    public Execution(BackgroundTask task, Lease lease, Job job, ExecutionLedger ledger, Clock clock, PausePoints pausePoints) {
        this(task, lease, job, ledger, clock, pausePoints, System::nanoTime, DEFAULT_LEASE_CHECK_MS);
    }

    public Execution(BackgroundTask task, Lease lease, Job job, ExecutionLedger ledger, Clock clock, PausePoints pausePoints,
            LongSupplier ticker, long leaseCheckMs) {
        this(task, lease, job, ledger, clock, pausePoints, ticker, leaseCheckMs, StatementPermits.NONE, ChildSpans.NONE);
    }

    /**
     * @param statements R48/R47's permits for the body's statements: the engine's fair share decides them by the
     *                   kind's priority ({@link StatementPermits#NONE} for an urgent kind)
     * @param spans      starts the kind's spans (R45; {@link ChildSpans#NONE} without tracing)
     */
    public Execution(BackgroundTask task, Lease lease, Job job, ExecutionLedger ledger, Clock clock, PausePoints pausePoints,
            LongSupplier ticker, long leaseCheckMs, StatementPermits statements, ChildSpans spans) {
        this.statements = statements;
        this.spans = spans;
        this.task = task;
        this.lease = lease;
        this.job = job;
        this.ledger = ledger;
        this.clock = clock;
        this.pausePoints = pausePoints;
        this.ticker = ticker;
        this.leaseCheckNanos = TimeUnit.MILLISECONDS.toNanos(leaseCheckMs);
        this.lastLeaseCheck = ticker.getAsLong();
    }

    /** Default of {@code teamdesk.task.lease-check-ms}: at most this much work between two lease checks. */
    public static final long DEFAULT_LEASE_CHECK_MS = 1000;

    /** @return the row as claimed (status RUNNING, this execution's lease) */
    public BackgroundTask task() {
        return task;
    }

    /** @return this execution's lease */
    public Lease lease() {
        return lease;
    }

    /** @return the application clock */
    public Clock clock() {
        return clock;
    }

    /**
     * R10: writes progress to the ledger first, under the lease, then reports it to the queue.
     * A failed queue report is logged and does not stop the run: the ledger is what people see.
     * Logged once per execution when the queue lock is lost (no report is sent after that), and
     * once per streak of other queue errors, so an export of thousands of batches does not log
     * thousands of warnings.
     *
     * @param percent 0-99 while running (100 only comes with completion)
     * @throws LeaseLost when the lease no longer matches (R8)
     */
    public void progress(int percent) {
        pause(EnginePausePoint.BEFORE_PROGRESS_WRITE);
        ledger.writeProgress(lease, percent, clock.instant());
        lastLeaseCheck = ticker.getAsLong();
        lastProgress = percent;
        pause(EnginePausePoint.AFTER_PROGRESS_WRITE);
        if (queueLockLost) {
            return;
        }
        try {
            job.updateProgress(percent);
            queueReportFailing = false;
        } catch (LockLostException e) {
            queueLockLost = true;
            LOG.log(Level.WARNING, "task.progress queue lock of {0} lost: this execution no longer reports "
                    + "progress to the queue (the ledger still gets it; the queue will refuse its outcome)",
                    job.id());
        } catch (RuntimeException e) {
            Level level = queueReportFailing ? Level.FINE : Level.WARNING;
            queueReportFailing = true;
            LOG.log(level, "task.progress queue report failed for {0}: {1}", new Object[] {job.id(), e.toString()});
        }
    }

    /**
     * R23: makes a lease-checked progress write (of the last progress, or {@code percent} when
     * higher) when the last one is at least {@code teamdesk.task.lease-check-ms} (default 1 s) of
     * work ago, so that a cancelled or taken-over execution stops within about that much work
     * whatever its batch size. Cheap to call per row.
     *
     * @param percent the progress reached so far, 0-99
     * @throws LeaseLost   when the lease no longer matches (R8)
     * @throws RunTimedOut past the run timeout (R26)
     */
    public void checkLeaseIfDue(int percent) {
        if (ticker.getAsLong() - lastLeaseCheck >= leaseCheckNanos) {
            progress(Math.max(lastProgress, percent));
        }
    }

    /**
     * R12: the final report to the queue after the ledger committed COMPLETED: progress 100, sent
     * with the queue's completion of this job in one script (issue 16), not as a round trip of its
     * own. If that completion fails, the ledger stays COMPLETED and a later execution of the job finds
     * it finished (R7).
     */
    public void reportCompletedToQueue() {
        pause(EnginePausePoint.BEFORE_FINAL_QUEUE_REPORT);
        job.updateProgressOnCompletion(100);
    }

    /**
     * R48 and R47: call right before a database statement of the body that starts new work (a read, a batch's
     * {@code COPY}, a progress or result write), and close what it returns when the statement is done. For a
     * background kind it waits for a permit of the instance's bound, then for urgent work; for an urgent kind it
     * returns at once. An interrupt ends the wait and stays set (the next lease check sees it).
     *
     * @return the permit (try-with-resources); never null
     */
    public StatementPermits.Permit beginStatement() {
        return statements.begin();
    }

    /**
     * Reads this execution's row under its lease: inside a kind's completing transaction, an early exit that never
     * replaces the check at completion (R14).
     *
     * @throws LeaseLost the lease no longer matches
     */
    public BackgroundTask readUnderLease() {
        return ledger.readUnderLease(lease);
    }

    /**
     * Completes this execution's run under its lease, inside the kind's JTA transaction ({@code MANDATORY}), so that
     * the kind's side effects commit with it and a lost lease rolls them back (R14): {@link ExecutionLedger#complete}.
     *
     * @param what names the completion in errors, e.g. {@code reminder completion}
     * @throws LeaseLost   the lease no longer matches; thrown out of the transaction, it rolls back
     * @throws RunTimedOut past the run's deadline (R26)
     */
    public void complete(String what, Instant now) {
        completed = true;
        if (ledger.complete(lease, what, now)) {
            releasesOthers = true;
        }
    }

    /**
     * {@link #complete(String, Instant)} saying what the run did in the task's {@code resultSummary}
     * ({@link ExecutionLedger#complete(Lease, String, String, Instant)}).
     *
     * @param summary at most 500 characters
     */
    public void complete(String what, String summary, Instant now) {
        completed = true;
        if (ledger.complete(lease, what, summary, now)) {
            releasesOthers = true;
        }
    }

    /**
     * Issue 52: whether this execution's run ended through {@link #complete}, and so whether {@link #releasesOthers}
     * knows if some task waits for it.
     */
    public boolean completedHere() {
        return completed;
    }

    /**
     * Issue 52: true when {@link #complete}'s statement found that its end may release others (a task waits for this
     * run, or it may be its batch's last child).
     */
    public boolean releasesOthers() {
        return releasesOthers;
    }

    /**
     * R45: starts a span inside this execution's, named by the kind ({@code export.batch}).
     *
     * @return the span, to {@link Span#end()} on this thread; {@link Span#getInvalid()} (every call a no-op) while
     *         tracing is off
     */
    public Span span(SpanName name) {
        return spans.child(name.spanName());
    }

    /** Reaches a test pause point (no-op in production): the engine's, or one the kind declares. */
    public void pause(PausePoint point) {
        pausePoints.reached(point, lease);
    }
}
