package com.teamdesk.tasks.task.engine;

import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.queue.FlatCombiner;
import com.teamdesk.tasks.queue.Job;
import com.teamdesk.tasks.queue.JobDeferredException;
import com.teamdesk.tasks.queue.JobProcessor;
import com.teamdesk.tasks.queue.RedisFaults;
import com.teamdesk.tasks.queue.UnrecoverableJobException;
import com.teamdesk.tasks.task.fairshare.FairShare;
import com.teamdesk.tasks.task.ledger.ExecutionOutcome;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.ledger.LedgerBreaker;
import com.teamdesk.tasks.task.ledger.RunTimeouts;
import com.teamdesk.tasks.task.observe.TaskMetrics;
import com.teamdesk.tasks.task.observe.TaskTracing;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.EnginePausePoint;
import com.teamdesk.tasks.task.spi.Execution;
import com.teamdesk.tasks.task.spi.Lease;
import com.teamdesk.tasks.task.spi.LeaseLost;
import com.teamdesk.tasks.task.spi.PausePoints;
import com.teamdesk.tasks.task.spi.RunTimedOut;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskRejected;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The queue's processor of task jobs: claims the run (R7), runs it with its kind's
 * {@code TaskKindHandler} (through {@link TaskKinds}), and classifies what the run threw (R9, R11,
 * R12). Called by the queue worker with one {@link Job} per execution.
 *
 * <p>Outcomes, in the order they are checked:
 * <ul>
 * <li>claim matched 0 rows (old run, finished task) → returns quietly (R7, R17);</li>
 * <li>{@link LeaseLost} → returns quietly: no failure write, no queue failure, no progress 100 (R9);</li>
 * <li>{@link TaskRejected} → final at once; any other error → final when
 * {@code attemptsMade + 1 >= MAX_TASK_ATTEMPTS}. Written with a lease-checked UPDATE to FAILED
 * or WAITING; 0 rows → returns quietly; 1 row → rethrows: a final error as the queue's
 * {@link UnrecoverableJobException}, a transient one as it was, so the queue retries (R11).
 * {@link RunTimedOut} (R26) is such a transient error, with a {@code lastError} saying the run took
 * too long.</li>
 * </ul>
 * A cancelled task (R23) has no lease: its execution stops with {@link LeaseLost} at its next write.
 *
 * <p>Before any of these, an error that is the infrastructure's (the ledger or Redis unreachable, at the claim
 * or later) is not an attempt: the execution is deferred ({@link #infrastructureFault}, issue 28).
 */
@ApplicationScoped
public class TaskProcessor implements JobProcessor {
    private static final Logger LOG = Logger.getLogger(TaskProcessor.class.getName());

    /** {@code lastError} of a run that will be retried after a transient error. */
    public static final String RETRYING_MESSAGE = "An attempt failed because of a temporary problem; it will be retried automatically.";

    @Inject
    JdbcTaskLedger ledger;

    @Inject
    RetryPolicy policy;

    @Inject
    Clock clock;

    @Inject
    PausePoints pausePoints;

    @Inject
    RunTimeouts timeouts;

    @Inject
    @ConfigProperty(name = "teamdesk.task.lease-check-ms", defaultValue = "1000")
    long leaseCheckMs;

    @Inject
    TaskKinds kinds;

    @Inject
    LedgerBreaker breaker;

    /** Deferral of an execution that met a Redis outage (issue 28), in ms. */
    static final long REDIS_DEFERRAL_MS = 5_000;

    /**
     * Most claims combined into one statement (issue 16); 1, the default, claims each job with a statement
     * of its own (measured faster: docs/decisions.md "Combined claims and completions").
     */
    @Inject
    @ConfigProperty(name = "teamdesk.task.claim-batch", defaultValue = "1")
    int claimBatch;

    private FlatCombiner<JdbcTaskLedger.ClaimRequest, Optional<JdbcTaskLedger.Claim>> claims;

    @Inject
    TaskMetrics metrics;

    @Inject
    TaskTracing tracing;

    /** R46-R48: where the body runs, its permits, its urgent window (docs/fair-share.md). */
    @Inject
    FairShare fairShare;

    /** Issue 52: hands over what a run's end released (its dependents, its batch's completion). */
    @Inject
    TaskDispatcher dispatcher;

    @Inject
    Transactions transactions;

    /** Issue 52: most runs one end hands to the queue at once; the dispatch sweep takes the rest (R18). */
    @Inject
    @ConfigProperty(name = "teamdesk.dispatch.batch-size", defaultValue = "200")
    int releaseLimit;

    @Override
    public void process(Job job) throws Exception {
        TaskJobId jobId = TaskJobId.parse(job.id());
        Optional<JdbcTaskLedger.Claim> claim;
        Instant claimedAt = clock.instant();
        try {
            claim = claim(new JdbcTaskLedger.ClaimRequest(jobId.taskId(), jobId.run(), job.attemptsMade(),
                    job.workerId(), claimedAt));
        } catch (RuntimeException e) {
            throw infrastructureFault(jobId, "claim", e).orElseThrow(() -> e);
        }
        if (claim.isEmpty()) {
            LOG.info(() -> "task.claim skipped " + jobId + ": not WAITING/RUNNING at this run");
            return;
        }
        Lease lease = claim.get().lease();
        BackgroundTask task = claim.get().task();
        long started = System.nanoTime();
        if (lease.attempts() == 1 && task.runAt() != null) {
            metrics.queueWait(task.kind(), Duration.between(task.runAt(), task.updatedAt()));
        }
        // R45: null while tracing is off (one field read); else this execution's span, current on this thread
        TaskTracing.ExecutionSpan span = tracing.on() ? tracing.startExecution(job, task, lease, claimedAt) : null;
        String outcome = null; // null: the lease was lost, the history says why (resolved in finally)
        int priority = kinds.handler(task.kind()).priority();
        FairShare.ExecutionShare share = fairShare.execution(job.id(), priority); // closed in finally
        Execution execution = new Execution(task, lease, job, ledger, clock, pausePoints, System::nanoTime,
                leaseCheckMs, share.statements(), tracing);
        try {
            execution.pause(EnginePausePoint.AFTER_CLAIM);
            share.run(() -> kinds.run(execution));
            metrics.completed(task.kind());
            outcome = ExecutionOutcome.COMPLETED.name();
        } catch (LeaseLost e) {
            metrics.leaseLost();
            LOG.info(() -> "task.lease_lost " + jobId + ": " + e.getMessage());
        } catch (Exception e) {
            Optional<RuntimeException> fault = infrastructureFault(jobId, "execution", e);
            if (fault.isPresent()) {
                outcome = ExecutionOutcome.DEFERRED.name();
                throw fault.get();
            }
            outcome = failureOutcome(e).name();
            if (!onFailure(execution, job, e)) {
                outcome = null;
            }
        } finally {
            share.close();
            if (outcome != null && !ExecutionOutcome.DEFERRED.name().equals(outcome) && releases(task, execution)) {
                release(task);
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            String ended = outcome != null ? outcome : tracing.outcomeAfterLeaseLost(lease);
            metrics.runDuration(task.kind(), took);
            metrics.executionEnded(task.kind(), ended, took);
            if (span != null) {
                span.outcome(ended);
                span.end();
            }
        }
    }

    /**
     * Issue 52: whether the end of this run may have released others (a dependent may be created while it runs, so the
     * claim's row does not tell). A reminder's, digest's or report's completion statement said so itself; a run that
     * ended otherwise (an export's completion, a failure) of a task that may have dependents or a batch is asked once.
     */
    private boolean releases(BackgroundTask task, Execution execution) {
        if (execution.completedHere()) {
            return execution.releasesOthers();
        }
        try {
            return ledger.mayHaveReleased(task.id());
        } catch (RuntimeException e) {
            return false; // the dispatch sweep hands it over within its period (R18)
        }
    }

    /**
     * Issue 52 (R52, R53): after a run of a batch's child or of a prerequisite ended and committed, hands to the queue
     * what that end released. Never throws: the dispatch sweep does the same within its period (R18).
     */
    private void release(BackgroundTask task) {
        dispatcher.dispatchReleased(TxSite.WORKER, task.id(), task.batchId(), releaseLimit);
    }

    private static ExecutionOutcome failureOutcome(Exception error) {
        return error instanceof TaskRejected ? ExecutionOutcome.REJECTED
                : error instanceof RunTimedOut ? ExecutionOutcome.TIMED_OUT : ExecutionOutcome.FAILED;
    }

    /**
     * R7: the claim, combined with the claims other slots make at the same moment into one statement
     * ({@link JdbcTaskLedger#claimAll}, {@code teamdesk.task.claim-batch}; 1 = each on its own). The
     * worker's threads run no JTA transaction, so a combined claim commits for every slot alike.
     */
    private Optional<JdbcTaskLedger.Claim> claim(JdbcTaskLedger.ClaimRequest request) {
        if (claimBatch <= 1) {
            return ledger.claim(request.taskId(), request.run(), request.attemptsMade(), request.claimedBy(),
                    request.now());
        }
        return claims.submit(request);
    }

    @PostConstruct
    void combineClaims() {
        if (claimBatch > 1) {
            claims = new FlatCombiner<>(claimBatch, batch -> ledger.claimAll(batch));
        }
    }

    /**
     * Issue 28: an error that is the infrastructure's (the ledger unreachable: {@link LedgerBreaker}; Redis
     * unreachable) is not one of the task's attempts. The execution is deferred without a ledger write (the
     * row keeps this execution's lease; the next execution's claim takes it over, R7) and the queue puts the
     * job back in delayed with {@code attemptsMade} unchanged. Only when the ledger's outage has outlasted
     * its budget does the run fail, for good, with {@link FailureCause#DATABASE_UNREACHABLE}, which
     * reconciliation writes to the ledger once it answers again (R20).
     *
     * @return the exception to throw to the queue, or empty when {@code error} is the task's own
     */
    private Optional<RuntimeException> infrastructureFault(TaskJobId jobId, String where, Exception error) {
        if (breaker.failed(error, where + " of " + jobId)) {
            if (breaker.budgetExhausted()) {
                LOG.warning(() -> "task.deferral_budget_exhausted " + jobId + ": the ledger has been unreachable"
                        + " for longer than " + breaker.outageBudget() + "; the run fails");
                return Optional.of(new UnrecoverableJobException(FailureCause.DATABASE_UNREACHABLE.queueReason(), error));
            }
            long delayMs = breaker.deferralDelayMs();
            metrics.deferred("database");
            LOG.fine(() -> "task.deferred " + jobId + " (" + where + "): ledger unreachable, again in " + delayMs + " ms");
            return Optional.of(new JobDeferredException(FailureCause.DATABASE_UNREACHABLE.queueReason(), delayMs, error));
        }
        if (RedisFaults.isConnectionFailure(error)) {
            metrics.deferred("redis");
            LOG.fine(() -> "task.deferred " + jobId + " (" + where + "): Redis unreachable: " + error);
            return Optional.of(new JobDeferredException("infrastructure: redis unreachable", REDIS_DEFERRAL_MS, error));
        }
        return Optional.empty();
    }

    /**
     * R11/R12: classify, report under the lease, rethrow only when the report was allowed.
     *
     * @return false when the lease was no longer held (nothing reported); otherwise it throws
     */
    private boolean onFailure(Execution execution, Job job, Exception error) throws Exception {
        Lease lease = execution.lease();
        boolean rejected = error instanceof TaskRejected;
        boolean isFinal = rejected || policy.isFinal(job.attemptsMade());
        String lastError = rejected ? ((TaskRejected) error).reason().message()
                : error instanceof RunTimedOut ? timedOutMessage(execution.task().kind(), isFinal)
                : isFinal ? finalMessage() : RETRYING_MESSAGE;
        boolean reported;
        try {
            execution.pause(EnginePausePoint.BEFORE_FAILURE_REPORT);
            reported = ledger.reportFailure(lease, isFinal, lastError, failureOutcome(error), clock.instant());
        } catch (RuntimeException reportError) {
            // The ledger could not be written: still tell the queue, the 2-minute sweep heals the row (R19).
            error.addSuppressed(reportError);
            breaker.failed(reportError, "failure report of " + job.id());
            reported = true;
        }
        if (!reported) {
            LOG.info(() -> "task.failure_report skipped " + job.id() + ": lease no longer held (" + error + ")");
            return false;
        }
        LOG.log(isFinal ? Level.WARNING : Level.INFO, "task.execution_failed {0} attempt {1} final={2}: {3}",
                new Object[] {job.id(), lease.attempts(), isFinal, error.toString()});
        if (isFinal) {
            metrics.failed(execution.task().kind());
            throw new UnrecoverableJobException(lastError, error);
        }
        throw error;
    }

    /** R26: the {@code lastError} of an attempt stopped at its run timeout. */
    private String timedOutMessage(TaskKind kind, boolean isFinal) {
        String took = "An attempt took longer than the " + RunTimeouts.describe(timeouts.of(kind)) + " an "
                + kind.name().toLowerCase(java.util.Locale.ROOT) + " may run and was stopped";
        return isFinal ? took + "; failed after " + policy.maxAttempts() + " attempts." : took + "; it will be retried automatically.";
    }

    private String finalMessage() {
        return "Failed after " + policy.maxAttempts() + " attempts because of an internal error.";
    }
}
