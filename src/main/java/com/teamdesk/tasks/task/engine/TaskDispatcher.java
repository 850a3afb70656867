package com.teamdesk.tasks.task.engine;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.queue.AddResult;
import com.teamdesk.tasks.queue.JobOptions;
import com.teamdesk.tasks.queue.JobRecord;
import com.teamdesk.tasks.queue.JobState;
import com.teamdesk.tasks.queue.NewJob;
import com.teamdesk.tasks.queue.Queue;
import com.teamdesk.tasks.task.fairshare.TeamQueueLimits;
import com.teamdesk.tasks.task.ledger.Dispatch;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.observe.TaskMetrics;
import com.teamdesk.tasks.task.observe.TaskTracing;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.TaskJobId;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional.TxType;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Hands WAITING runs to the queue (R18) and brings the ledger in line with what the queue says of
 * a run (R20). Rows are locked {@code FOR UPDATE SKIP LOCKED} inside the caller's transaction,
 * added to the queue as job {@code T-run} (R1; a duplicate add is a no-op, R2), then marked; a
 * failure rolls the transaction back and leaves the rows as they were. Safe on several instances at
 * once. Every method marked {@code MANDATORY} must run inside a transaction begun by
 * {@link com.teamdesk.tasks.platform.Transactions}: one call, one batch, one commit; {@link #dispatchReleased} opens its
 * own, and the {@code add…Committed} ones run after their caller's commit.
 */
@ApplicationScoped
public class TaskDispatcher {
    private static final Logger LOG = Logger.getLogger(TaskDispatcher.class.getName());

    /** {@code lastError} when the queue gave up on a run whose worker stopped (R20): {@link FailureCause#STALLED}. */
    public static final String QUEUE_FAILED_MESSAGE = FailureCause.STALLED.lastError();

    @Inject
    JdbcTaskLedger ledger;

    @Inject
    TaskMetrics metrics;

    @Inject
    Queue queue;

    @Inject
    RetryPolicy policy;

    @Inject
    Clock clock;

    @Inject
    TaskKinds kinds;

    @Inject
    TaskTracing tracing;

    @Inject
    Transactions transactions;

    /** Issue 52: longest wait, in ms, for a released run another transaction holds ({@link #dispatchReleased}). */
    @Inject
    @ConfigProperty(name = "teamdesk.dispatch.release-lock-wait-ms", defaultValue = "2000")
    long lockWaitMs;

    /**
     * R18 sweep: dispatches up to {@code limit} due, undispatched WAITING runs.
     *
     * @return how many runs were handled
     */
    @Transactional(TxType.MANDATORY)
    public int dispatchDue(int limit) {
        Instant now = clock.instant();
        List<Dispatch> due = ledger.lockDueForDispatch(now, limit, null);
        handOver(due, now);
        return due.size();
    }

    /** Dispatches one task right after its creating (or retrying) transaction committed. */
    @Transactional(TxType.MANDATORY)
    public void dispatchNow(UUID taskId) {
        Instant now = clock.instant();
        handOver(ledger.lockDueForDispatch(now, 1, taskId), now);
    }

    /**
     * Issue 52 (R51, R18): adds the queue jobs of runs their creating transaction committed already marked dispatched
     * (a batch's children), in one pipelined round trip. A duplicate (R2) is fine. Never throws.
     *
     * @return false when Redis could not take them: the caller takes the marks back for the dispatch sweep
     */
    public boolean addAllCommitted(List<Dispatch> runs) {
        if (runs.isEmpty()) {
            return true;
        }
        try {
            queue.addBulk(runs.stream().map(this::newJob).toList());
            return true;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "task.dispatch of " + runs.size() + " runs deferred to the sweep: " + e);
            return false;
        }
    }

    /**
     * Issue 52 (R52, R53): hands to the queue what the end of task {@code taskId} released, right after that end
     * committed: its dependents that wait for nothing more and the completion of batch {@code batchId}. The dispatch
     * sweep does the same within its period (R18); this saves that wait, on a server whose timers are off too.
     *
     * <p>First, in one transaction, every released run no other transaction holds ({@code SKIP LOCKED}). Then each run
     * that another transaction held at that moment (a create that names it as its prerequisite marks it for a few
     * milliseconds), in a transaction of its own that holds no other lock while it waits, at most
     * {@code lockWaitMs}: such a wait can never be part of a deadlock. Opens its own transactions; never throws (what
     * it could not hand over is left to the sweep, and logged).
     *
     * @param site the calling thread's kind (worker, request)
     * @param taskId the task whose end committed, or null for a batch's cancel
     * @param limit most runs handed over at once; the sweep takes the rest
     * @return how many runs were handed over
     */
    public int dispatchReleased(TxSite site, UUID taskId, UUID batchId, int limit) {
        int handed = 0;
        try {
            handed = transactions.inNewTransaction(site, () -> {
                Instant now = clock.instant();
                List<Dispatch> due = ledger.lockReleased(taskId, batchId, now, limit);
                handOver(due, now);
                return due.size();
            });
            List<UUID> held = handed < limit ? ledger.releasedStillDue(taskId, batchId, clock.instant(), limit - handed)
                    : List.of();
            for (UUID id : held) {
                handed += transactions.inNewTransaction(site, () -> {
                    Instant now = clock.instant();
                    List<Dispatch> due = ledger.lockDueWaiting(id, now, lockWaitMs);
                    handOver(due, now);
                    return due.size();
                });
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "task.dispatch of what " + (taskId != null ? "task " + taskId : "batch " + batchId)
                    + " released is left to the sweep: " + e);
        }
        return handed;
    }

    /**
     * R18 for a run its creating transaction committed already marked dispatched at {@code dispatchedAt}:
     * adds its queue job now that workers can see and claim the row without waiting for any lock. When
     * the add fails (Redis unreachable) the mark is taken back so that the dispatch sweep adds it; if even
     * that fails, reconciliation (R20) finds the dispatched run without a job and adds it. Never throws.
     */
    public void addCommitted(Dispatch run, Instant dispatchedAt) {
        TaskJobId job = run.job();
        try {
            AddResult r = queue.add(job.toString(), payload(job, run.traceParent()), options(run));
            if (r == AddResult.DUPLICATE) {
                LOG.fine(() -> "task.dispatch " + job + ": the queue has it already (R2)");
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "task.dispatch deferred to the sweep for " + job + ": " + e);
            try {
                ledger.undispatch(job, dispatchedAt);
            } catch (RuntimeException again) {
                LOG.log(Level.WARNING, "task.dispatch of " + job + " left to reconciliation (R20): " + again);
            }
        }
    }

    /**
     * R20 for one locked WAITING run whose queue job should exist: decides from the queue's record.
     * Missing → added again; COMPLETED while the ledger still waits (an execution returned after
     * losing its lease) → removed and added again; FAILED (always exhausted in the queue) →
     * the ledger becomes FAILED with the {@link FailureCause} the queue's reason names, except for a run
     * that no execution ever claimed (attempts 0), which is removed and added again (issue 28: an outage
     * or a worker lost between fetch and claim is not the task's failure); WAITING, DELAYED or ACTIVE →
     * the queue still owns it.
     */
    @Transactional(TxType.MANDATORY)
    public void reconcile(TaskJobId job, Instant now) {
        Optional<JobRecord> record = queue.getJob(job.toString());
        if (record.isEmpty()) {
            metrics.reconciled("redispatched_missing");
            add(job, now, "missing in the queue");
            return;
        }
        metrics.reconciled(switch (record.get().state()) {
            case FAILED -> "failed";
            case COMPLETED -> "redispatched_completed";
            default -> "queued";
        });
        switch (record.get().state()) {
            case FAILED -> {
                FailureCause cause = FailureCause.ofQueueReason(record.get().failedReason());
                if (cause != FailureCause.DATABASE_UNREACHABLE && neverClaimed(job)) {
                    // issue 28: no execution of this run ever reached the ledger, so the queue's failure is not
                    // the task's (an outage, a worker lost between fetch and claim): the run is dispatched again
                    queue.remove(job.toString());
                    add(job, now, "failed in the queue (" + record.get().failedReason() + ") but never claimed");
                    return;
                }
                if (ledger.failFromQueue(job, cause.lastError(), now)) {
                    LOG.warning(() -> "task.reconcile " + job + ": queue failed the run ("
                            + record.get().failedReason() + "); ledger FAILED");
                }
            }
            case COMPLETED -> {
                queue.remove(job.toString());
                add(job, now, "completed in the queue but not in the ledger");
            }
            default -> ledger.markDispatched(List.of(job), now);
        }
    }

    /**
     * Adds locked runs to the queue in one pipelined round trip and marks the added ones with one
     * UPDATE; a duplicate (R2: the queue already has T-run, e.g. after stall recovery) is decided
     * by the queue's record (R20).
     */
    private void handOver(List<Dispatch> runs, Instant now) {
        if (runs.isEmpty()) {
            return;
        }
        List<AddResult> results = queue.addBulk(runs.stream()
                .map(this::newJob).toList());
        List<TaskJobId> added = new ArrayList<>(runs.size());
        for (int i = 0; i < runs.size(); i++) {
            if (results.get(i) == AddResult.ADDED) {
                added.add(runs.get(i).job());
            } else {
                reconcile(runs.get(i).job(), now);
            }
        }
        ledger.markDispatched(added, now);
    }

    /**
     * R23: removes the queue job of a cancelled run if it is waiting or delayed (never an active
     * one: its execution finds its lease gone). Best effort, after the cancel committed: a job left
     * behind is claimed to no effect (R7) and removed by {@link #removeCancelled}.
     *
     * @return true when a job was removed
     */
    public boolean removeQueued(TaskJobId job) {
        try {
            Optional<JobRecord> record = queue.getJob(job.toString());
            if (record.isPresent() && (record.get().state() == JobState.WAITING || record.get().state() == JobState.DELAYED)
                    && queue.remove(job.toString())) {
                LOG.info(() -> "task.cancel removed queue job " + job);
                return true;
            }
        } catch (RuntimeException e) {
            LOG.warning(() -> "task.cancel could not remove queue job " + job + " (reconciliation will): " + e);
        }
        return false;
    }

    /**
     * R23 reconciliation for one locked CANCELLED run: its queue record is garbage. Removed unless
     * it is active with a live lock (its execution is still finishing; the next sweep looks again);
     * once gone, the row's {@code dispatchedAt} marker is cleared.
     *
     * @return true when the run needs no further look
     */
    @Transactional(TxType.MANDATORY)
    public boolean removeCancelled(TaskJobId job) {
        Optional<JobRecord> record = queue.getJob(job.toString());
        if (record.isPresent() && !queue.remove(job.toString())) {
            return false;
        }
        ledger.clearCancelledDispatch(job);
        record.ifPresent(r -> LOG.info(() -> "task.reconcile " + job + ": removed the " + r.state()
                + " queue record of a cancelled run"));
        return true;
    }

    /** @return whether the run's row is at that run with no attempt recorded (no claim reached the ledger) */
    private boolean neverClaimed(TaskJobId job) {
        return ledger.find(job.taskId()).filter(t -> t.run() == job.run() && t.attempts() == 0).isPresent();
    }

    private void add(TaskJobId job, Instant now, String why) {
        BackgroundTask task = ledger.find(job.taskId()).orElse(null);
        JobOptions options = task == null ? policy.jobOptions() : options(new Dispatch(job, task.teamId(), task.kind()));
        AddResult r = queue.add(job.toString(), payload(job, task == null ? null : task.traceParent()), options);
        ledger.markDispatched(List.of(job), now);
        LOG.info(() -> "task.redispatch " + job + " (" + why + "): " + r);
    }

    /** The queue job of a run: its id (R1), its payload and its options. */
    private NewJob newJob(Dispatch run) {
        return new NewJob(run.job().toString(), payload(run.job(), run.traceParent()), options(run));
    }

    /**
     * Issue 30: the queue job's options: the retry policy's attempts, backoff and retention, the team as its group
     * (teams take turns), its kind's priority within the team, and the team's rate limit of the kind.
     */
    private JobOptions options(Dispatch run) {
        return policy.jobOptions().withGroup(run.teamId().toString()).withPriority(kinds.handler(run.kind()).priority())
                .withRateKey(TeamQueueLimits.rateKey(run.teamId(), run.kind()));
    }

    /**
     * The job's payload: {@code {"taskId":…,"run":…}}, and while tracing is on the task's creating request's
     * {@code "traceparent"} (R45), the parent of the job's execution spans.
     */
    private String payload(TaskJobId job, String traceParent) {
        var payload = Jsons.PROVIDER.createObjectBuilder().add("taskId", job.taskId().toString()).add("run", job.run());
        if (traceParent != null && tracing.on()) {
            payload.add(TaskTracing.TRACEPARENT, traceParent);
        }
        return payload.build().toString();
    }
}
