package com.teamdesk.tasks.task.service;

import com.teamdesk.tasks.common.ConflictException;
import com.teamdesk.tasks.common.ForbiddenException;
import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.task.engine.TaskDispatcher;
import com.teamdesk.tasks.task.idempotency.IdempotencyKeys;
import com.teamdesk.tasks.task.idempotency.IdempotentRequest;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.observe.TaskMetrics;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.task.spi.TaskStatus;
import com.teamdesk.tasks.team.Role;
import com.teamdesk.tasks.team.TeamAccess;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What members and operators do to a task's run after it was created: retry as a new run (R15/R16) and cancel
 * (R23). Authorization as in {@link TaskService} (a task the caller may not see answers 404); each ledger write
 * is its own short transaction, a retried task is dispatched right after its row committed (R18).
 */
@ApplicationScoped
public class TaskRuns {
    private static final Logger LOG = Logger.getLogger(TaskService.class.getName());
    /** {@code lastError} of a task a member cancelled (R23). */
    public static final String CANCELLED_MESSAGE = "Cancelled by a member of the team.";
    private static final int OK = 200;
    private static final Set<TaskStatus> RETRYABLE = EnumSet.of(TaskStatus.FAILED, TaskStatus.CANCELLED);

    @Inject
    TaskService tasks;

    @Inject
    JdbcTaskLedger ledger;

    @Inject
    TeamAccess access;

    @Inject
    TaskDispatcher dispatcher;

    @Inject
    Transactions transactions;

    @Inject
    IdempotencyKeys keys;

    @Inject
    Clock clock;

    @Inject
    TaskMetrics metrics;

    @Inject
    com.teamdesk.tasks.team.SystemEventService events;

    @Inject
    com.teamdesk.tasks.task.engine.TaskKinds kinds;

    /**
     * R59: a kind the server starts itself is steered by what started it, not by members: its tasks are neither
     * cancelled nor retried through the API (an escalation cancelled would hide a breach, one retried would fire early).
     *
     * @throws com.teamdesk.tasks.common.UnprocessableException ({@code task.system_only})
     */
    private void requireMemberSteerable(BackgroundTask task) {
        if (kinds.handler(task.kind()).systemOnly()) {
            throw new com.teamdesk.tasks.common.UnprocessableException("task.system_only", task.kind().name()
                    + " is started and ended by the server; it cannot be cancelled or retried.");
        }
    }


    /**
     * R15/R16 manual retry: a new run {@code run + 1} of a FAILED or CANCELLED task (R23), dispatched
     * at once. Answers "accepted", not "file ready".
     *
     * @return the task as it is after the retry (WAITING, new run, every reset of R16)
     * @throws NotFoundException  not visible to the caller
     * @throws ForbiddenException ({@code task.permission_lost}) the owner left the team, or a
     *                            TEAM-scope task's owner is no longer staff: retry never restores a
     *                            lost permission
     * @throws ConflictException  ({@code task.not_failed}) the task is neither FAILED nor CANCELLED
     */
    public BackgroundTask retry(UUID callerId, UUID taskId) {
        return retry(callerId, taskId, null).task();
    }

    /**
     * {@link #retry(UUID, UUID)} with an optional {@code Idempotency-Key} (R25), recorded in the
     * retry's transaction: a replay answers the task as it is now with the original 202 and starts
     * no second run.
     */
    public Submitted retry(UUID callerId, UUID taskId, IdempotentRequest idem) {
        Instant now = clock.instant();
        BackgroundTask task = tasks.get(callerId, taskId);
        Optional<Submitted> seen = TaskService.replayed(keys, ledger, idem, now);
        if (seen.isPresent()) {
            return seen.get();
        }
        requireMemberSteerable(task);
        if (permissionLost(task)) {
            throw new ForbiddenException("task.permission_lost",
                    "The task's owner no longer has permission for its scope; create a new task instead.");
        }
        if (!RETRYABLE.contains(task.status())) {
            throw notFailed(task);
        }
        Optional<IdempotencyKeys.Stored> raced = transactions.inNewTransaction(TxSite.REQUEST, () -> {
            if (idem != null) {
                Optional<IdempotencyKeys.Stored> earlier = keys.record(idem, taskId, TaskService.ACCEPTED, now);
                if (earlier.isPresent()) {
                    return earlier;
                }
            }
            checkPrerequisites(task);
            BackgroundTask retried = ledger.retry(taskId, task.run(), now).orElseThrow(() -> notFailed(task));
            events.append(retried.teamId(), TaskService.RETRIED_EVENT, callerId, taskId, Jsons.PROVIDER.createObjectBuilder()
                    .add("run", retried.run()).build(), now);
            return Optional.<IdempotencyKeys.Stored>empty();
        });
        if (raced.isPresent()) {
            return TaskService.replay(ledger, raced.get());
        }
        dispatchNow(taskId);
        return new Submitted(ledger.find(taskId).orElseThrow(), TaskService.ACCEPTED, false);
    }

    /**
     * R23 cancel: ONE conditional UPDATE from WAITING (scheduled or not) or RUNNING to CANCELLED,
     * lease cleared; then the run's queue job is removed if it is waiting or delayed. An active job
     * is left to its execution, which finds its lease gone at its next lease-checked write (R8) and
     * returns quietly (R9). Allowed to whoever may see the task: its owner, and STAFF/OWNER of its
     * team (a customer sees only their own tasks).
     *
     * @param idem optional {@code Idempotency-Key} (R25), recorded in the cancel's transaction
     * @return the task as the cancel left it (200); a task already CANCELLED unchanged (idempotent)
     * @throws NotFoundException ({@code task.not_found}) not visible to the caller
     * @throws ConflictException ({@code task.not_cancellable}) the task is COMPLETED or FAILED
     */
    public Submitted cancel(UUID callerId, UUID taskId, IdempotentRequest idem) {
        Instant now = clock.instant();
        BackgroundTask task = tasks.get(callerId, taskId); // 404 unless the caller may see it
        Optional<Submitted> seen = TaskService.replayed(keys, ledger, idem, now);
        if (seen.isPresent()) {
            return seen.get();
        }
        requireMemberSteerable(task);
        Optional<BackgroundTask> cancelled = transactions.inNewTransaction(TxSite.REQUEST, () -> {
            if (idem != null) {
                Optional<IdempotencyKeys.Stored> earlier = keys.record(idem, taskId, OK, now);
                if (earlier.isPresent()) {
                    return Optional.<BackgroundTask>empty();
                }
            }
            if (task.batchId() != null) {
                ledger.lockBatchOf(taskId); // R52's lock order: the batch's row before its child's
            }
            Optional<BackgroundTask> row = ledger.cancel(taskId, callerId, CANCELLED_MESSAGE, now);
            row.ifPresent(t -> events.append(t.teamId(), TaskService.CANCELLED_EVENT, callerId, taskId,
                    Jsons.PROVIDER.createObjectBuilder().add("run", t.run()).build(), now));
            if (row.isEmpty()) {
                BackgroundTask current = ledger.find(taskId).orElseThrow(TaskService::taskNotFound);
                if (current.status() != TaskStatus.CANCELLED) {
                    throw new ConflictException("task.not_cancellable",
                            "Only a WAITING or RUNNING task can be cancelled; this one is " + current.status() + ".");
                }
            }
            return row;
        });
        if (cancelled.isPresent()) {
            BackgroundTask t = cancelled.get();
            LOG.info(() -> "task.cancelled " + t.jobId() + " by " + callerId);
            metrics.cancelled(t.kind());
            dispatcher.removeQueued(TaskJobId.of(t.id(), t.run()));
            if (t.settlesOthers()) {
                releaseAfter(t);
            }
            return new Submitted(t, OK, false);
        }
        Optional<Submitted> raced = TaskService.replayed(keys, ledger, idem, clock.instant());
        if (raced.isPresent()) {
            return raced.get();
        }
        return new Submitted(ledger.find(taskId).orElseThrow(TaskService::taskNotFound), OK, false);
    }

    /**
     * R15/R16 retry by an operator (issue 14, bulk retry): as a member's retry, without the caller's
     * team check, and never restoring a lost permission of the owner.
     *
     * @return empty when retried; else why not ({@code permission_lost}, {@code not_failed})
     */
    public Optional<String> retryByOperator(UUID taskId) {
        BackgroundTask task = ledger.find(taskId).orElse(null);
        if (task == null || task.status() != TaskStatus.FAILED) {
            return Optional.of("not_failed");
        }
        if (permissionLost(task)) {
            return Optional.of("permission_lost");
        }
        try {
            if (transactions.inNewTransaction(TxSite.REQUEST, () -> {
                checkPrerequisites(task);
                return ledger.retry(taskId, task.run(), clock.instant());
            }).isEmpty()) {
                return Optional.of("not_failed");
            }
        } catch (ConflictException e) {
            return Optional.of("prerequisite_ended");
        }
        dispatchNow(taskId);
        return Optional.empty();
    }

    /** R16: retry never restores a lost permission: the owner left the team, or a TEAM task's owner is no longer staff. */
    private boolean permissionLost(BackgroundTask task) {
        Role ownerRole = access.roleOf(task.teamId(), task.ownerId()).orElse(null);
        return ownerRole == null || (task.scope() == TaskScope.TEAM && !ownerRole.isStaff());
    }

    /**
     * R53: a task that waits for others is retried only while none of them ended without completing (unless it runs
     * anyway); they stay locked until the retry commits, so none ends unseen in between.
     *
     * @throws ConflictException ({@code task.prerequisite_ended}) naming the prerequisite
     */
    private void checkPrerequisites(BackgroundTask task) {
        for (JdbcTaskLedger.Prerequisite p : ledger.lockPrerequisitesOf(task.id())) {
            if (p.ended() && p.status() != TaskStatus.COMPLETED && !task.runAnyway()) {
                throw new ConflictException("task.prerequisite_ended", "This task waits for task " + p.id()
                        + ", which is " + p.status() + "; retry that one first.");
            }
        }
    }

    /** Issue 52: after a cancel committed, hands over what it released (its batch's completion). Never throws. */
    private void releaseAfter(BackgroundTask t) {
        dispatcher.dispatchReleased(TxSite.REQUEST, t.id(), t.batchId(), 1);
    }

    private void dispatchNow(UUID taskId) {
        try {
            transactions.inNewTransaction(TxSite.REQUEST, () -> dispatcher.dispatchNow(taskId));
        } catch (RuntimeException e) {
            // The row is committed WAITING and undispatched: the dispatch timer picks it up (R18).
            LOG.log(Level.WARNING, "task.dispatch deferred to the sweep for " + taskId + ": " + e);
        }
    }

    private static ConflictException notFailed(BackgroundTask task) {
        return new ConflictException("task.not_failed",
                "Only a FAILED or CANCELLED task can be retried; this one is " + task.status() + ".");
    }
}
