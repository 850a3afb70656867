package com.teamdesk.tasks.task.service;

import com.teamdesk.tasks.common.ConflictException;
import com.teamdesk.tasks.common.ForbiddenException;
import com.teamdesk.tasks.common.GoneException;
import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.common.Page;
import com.teamdesk.tasks.common.UnprocessableException;
import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.task.batch.Prerequisites;
import com.teamdesk.tasks.task.engine.TaskDispatcher;
import com.teamdesk.tasks.task.engine.TaskKinds;
import com.teamdesk.tasks.task.fairshare.FairShare;
import com.teamdesk.tasks.task.idempotency.IdempotencyKeys;
import com.teamdesk.tasks.task.idempotency.IdempotentRequest;
import com.teamdesk.tasks.task.ledger.Dispatch;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.ledger.Placement;
import com.teamdesk.tasks.task.ledger.TaskExecution;
import com.teamdesk.tasks.task.ledger.TaskReads;
import com.teamdesk.tasks.task.observe.TaskMetrics;
import com.teamdesk.tasks.task.observe.TaskTracing;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.Caller;
import com.teamdesk.tasks.task.spi.NewTaskRequest;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskKindHandler;
import com.teamdesk.tasks.task.spi.TaskResult;
import com.teamdesk.tasks.task.spi.TaskStatus;
import com.teamdesk.tasks.team.KeysetCursor;
import com.teamdesk.tasks.team.Role;
import com.teamdesk.tasks.team.TeamAccess;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Application service of tasks: what members ask for through the API. Authorization is enforced
 * here for every call: a non-member gets 404, a member without role or scope 403 (API.md). Each
 * ledger write is its own short transaction; a created or retried task is dispatched right after
 * its row committed (R18), and the timer sweep picks it up if that dispatch fails.
 *
 * <p>Visibility: OWNER and STAFF see every task of the team; a CUSTOMER sees only tasks they own.
 * A task the caller may not see answers 404. Retry and cancel are {@code TaskRuns}.
 *
 * <p>Why one class of about 350 lines: create and the reads share the caller's visibility rule (404 for a task the
 * caller may not see) and the Idempotency-Key replay; retry and cancel, which change a run, are {@code TaskRuns}.
 */
@ApplicationScoped
public class TaskService {
    /** The status of an accepted create or retry. */
    static final int ACCEPTED = 202;

    @Inject
    JdbcTaskLedger ledger;

    @Inject
    TeamAccess access;

    @Inject
    TaskDispatcher dispatcher;

    @Inject
    TaskKinds kinds;

    @Inject
    Transactions transactions;

    @Inject
    IdempotencyKeys keys;

    @Inject
    Clock clock;

    @Inject
    TaskReads reads;

    @Inject
    @ConfigProperty(name = "teamdesk.task.run-at-skew-s", defaultValue = "60")
    long runAtSkewS;

    @Inject
    TaskMetrics metrics;

    @Inject
    com.teamdesk.tasks.team.SystemEventService events;

    @Inject
    TaskTracing tracing;

    /** R47: a request's urgent window, or its yield to urgent work (docs/fair-share.md). */
    @Inject
    FairShare fairShare;

    /** R53: what a new task waits for. */
    @Inject
    Prerequisites prerequisites;

    /**
     * Creates a task (WAITING, run 0) and dispatches it at once unless it is scheduled for later
     * ({@code runAt}, R24: the dispatch sweep hands it to the queue when due). The kind's
     * {@link TaskKindHandler#accept} validates the rest of the request and decides the scope.
     *
     * @return the created row
     * @throws NotFoundException     caller not a member of the team; or as the kind decides (a
     *                               reminder's ticket not visible to the caller)
     * @throws ForbiddenException    as the kind decides (a TEAM-scope export by a customer)
     * @throws InvalidInputException bad kind ({@code task.invalid}) or {@code runAt}
     *                               ({@code task.run_at_invalid}); or the kind's own codes
     */
    public BackgroundTask create(UUID callerId, UUID teamId, NewTaskRequest req) {
        return create(callerId, teamId, req, null).task();
    }

    /**
     * {@link #create(UUID, UUID, NewTaskRequest)} with an optional {@code Idempotency-Key} (R25): the
     * key is recorded in the same transaction as the task's INSERT. Without a key the INSERT is one
     * statement committed on its own. Must not be called inside a transaction: the queue job is added
     * after the row committed (R18). The same key and request again
     * within 24 h answer the original task (status 202, {@code replayed}) and create nothing.
     *
     * @param idem the key and fingerprint, or null without the header
     * @return the task and the answer's status (202)
     * @throws UnprocessableException ({@code idempotency.key_reused}) the key was used for another request
     * @throws ConflictException      ({@code idempotency.in_progress}) an identical request is in flight
     */
    public Submitted create(UUID callerId, UUID teamId, NewTaskRequest req, IdempotentRequest idem) {
        // R47: a request for an urgent kind holds background statements back from its first read to its answer;
        // one for a background kind lets the urgent work in flight go first
        int priority = req == null ? -1 : kinds.priorityOf(req.kind());
        try (FairShare.RequestShare share = fairShare.request(priority)) { // its window outlives it when handed over
            return createTask(callerId, teamId, req, idem, share);
        }
    }

    /**
     * {@link #create(UUID, UUID, NewTaskRequest, IdempotentRequest)} inside its urgent window (R47), which it hands
     * over to the claim of the job it dispatches.
     */
    private Submitted createTask(UUID callerId, UUID teamId, NewTaskRequest req, IdempotentRequest idem,
            FairShare.RequestShare share) {
        Role role = access.requireMember(teamId, callerId);
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        Optional<Submitted> seen = replayed(keys, ledger, idem, now);
        if (seen.isPresent()) {
            return seen.get();
        }
        if (req == null) {
            throw new InvalidInputException("task.invalid", "A JSON body is required.");
        }
        TaskKind kind = kinds.parseRequired(req.kind(), "kind", "task.invalid");
        if (kinds.handler(kind).completionOnly()) {
            throw new UnprocessableException("task.completion_only", kind.name() + " runs only as a batch's completion.");
        }
        TaskKindHandler.Accepted<String> accepted = kinds.accept(kind, req, new Caller(callerId, teamId, role));
        Instant runAt = runAt(req.runAt(), now);
        Prerequisites.After after = prerequisites.parse(req.body(), 0, -1); // R53
        UUID id = UUID.randomUUID();
        boolean dueNow = !runAt.isAfter(now);
        // R45: the request's trace context (Payara's span of this POST), stored with the task; null while tracing is off
        String traceParent = tracing.currentTraceParent();
        Created created;
        if (idem == null && after.isEmpty()) {
            // One statement, committed on its own (auto-commit): no JTA transaction to begin and end (issue 16).
            created = new Created(ledger.insert(id, kind, teamId, callerId, accepted.scope(), accepted.params(), runAt,
                    now, dueNow, traceParent), null);
        } else {
            created = transactions.inNewTransaction(TxSite.REQUEST, () -> {
                if (idem != null) {
                    Optional<IdempotencyKeys.Stored> earlier = keys.record(idem, id, ACCEPTED, now);
                    if (earlier.isPresent()) {
                        return new Created(null, earlier.get());
                    }
                }
                if (after.isEmpty()) {
                    return new Created(ledger.insert(id, kind, teamId, callerId, accepted.scope(), accepted.params(),
                            runAt, now, dueNow, traceParent), null);
                }
                // R53: the prerequisites locked and checked, the task counted as waiting for those not ended
                Map<UUID, JdbcTaskLedger.Prerequisite> locked = prerequisites.lock(teamId, callerId, role, after.tasks());
                prerequisites.checkDepth(after.tasks(), 1);
                Placement placement = new Placement(null, Prerequisites.waitingFor(after, locked), after.runAnyway());
                BackgroundTask row = ledger.insert(id, kind, teamId, callerId, accepted.scope(), accepted.params(), runAt,
                        now, dueNow && placement.waitsFor() == 0, traceParent, placement);
                ledger.insertDependencies(after.tasks().stream().map(p -> new UUID[] {id, p}).toList(),
                        locked.values().stream().filter(JdbcTaskLedger.Prerequisite::ended)
                                .map(JdbcTaskLedger.Prerequisite::id).collect(java.util.stream.Collectors.toSet()));
                return new Created(row, null);
            });
        }
        if (created.raced() != null) {
            return replay(created.raced());
        }
        metrics.created(kind);
        if (created.task().dispatchedAt() != null) {
            TaskJobId job = TaskJobId.of(id, 0);
            // R47: held background statements wait for the job's claim too (handed over first: the claim may come
            // before the add returns)
            share.dispatched(job.toString());
            dispatcher.addCommitted(new Dispatch(job, teamId, kind, traceParent), now); // after the commit: R18 (issue 16)
        }
        return new Submitted(created.task(), ACCEPTED, false);
    }

    /** What the creating transaction did: inserted {@code task}, or found the key {@code raced} by an earlier request. */
    private record Created(BackgroundTask task, IdempotencyKeys.Stored raced) {
    }

    /** R24's {@code runAt}: {@link NewTaskRequest#runAt(String, Instant, long)} with this server's tolerance. */
    private Instant runAt(String text, Instant now) {
        return NewTaskRequest.runAt(text, now, runAtSkewS);
    }

    private Submitted replay(IdempotencyKeys.Stored stored) {
        return replay(ledger, stored);
    }

    /** R25: the answer to a replayed request, the task as it is now with the original status. */
    static Submitted replay(JdbcTaskLedger ledger, IdempotencyKeys.Stored stored) {
        return new Submitted(ledger.find(stored.taskId()).orElseThrow(TaskService::taskNotFound), stored.status(), true);
    }

    /** R25: the replayed answer when {@code idem} names a request already answered, else empty. */
    static Optional<Submitted> replayed(IdempotencyKeys keys, JdbcTaskLedger ledger, IdempotentRequest idem,
                                        Instant now) {
        if (idem == null) {
            return Optional.empty();
        }
        return keys.find(idem, now).map(stored -> replay(ledger, stored));
    }

    /**
     * @return the task, if the caller may see it
     * @throws NotFoundException ({@code task.not_found}) when missing, of another team, or not visible
     */
    public BackgroundTask get(UUID callerId, UUID taskId) {
        return visible(callerId, taskId).task();
    }

    /**
     * R43: one page of the executions of a task the caller may see (the visibility of {@link #get}), newest
     * claim first. The cursor has the shape of the other lists' ({@link KeysetCursor}: here claimedAt and
     * executionId).
     *
     * @param limit  1-500, null = 50
     * @param cursor opaque cursor from the previous page, or null
     * @throws NotFoundException     ({@code task.not_found}) when missing, of another team, or not visible
     * @throws InvalidInputException bad limit or cursor
     */
    public Page<TaskExecution> executions(UUID callerId, UUID taskId, Integer limit, String cursor) {
        visible(callerId, taskId);
        int n = Page.limit(limit);
        KeysetCursor after = KeysetCursor.decode(cursor);
        List<TaskExecution> rows = reads.executions(taskId, after == null ? null : after.createdAt(),
                after == null ? null : after.id(), n + 1);
        return KeysetCursor.page(rows, n, TaskExecution::claimedAt, TaskExecution::executionId);
    }

    /** System event of a member's retry (issue 32: the task's timeline); payload {@code {"run": the new run}}. */
    public static final String RETRIED_EVENT = "task.retried";
    /** System event of a member's cancel (issue 32); payload {@code {"run": the cancelled run}}. */
    public static final String CANCELLED_EVENT = "task.cancelled";

    /** The system events a task's timeline shows (issue 32): members' retries and cancels, operators' retries. */
    public static final List<String> ACTION_EVENTS = List.of(RETRIED_EVENT, CANCELLED_EVENT, "admin.task.retried");

    /**
     * Issue 32: one page of what people did to a task the caller may see (the visibility of {@link #get}):
     * retries and cancels, newest first, with who and when.
     *
     * @param limit  1-500, null = 50
     * @param cursor opaque cursor from the previous page, or null
     * @throws NotFoundException     ({@code task.not_found}) when missing, of another team, or not visible
     * @throws InvalidInputException bad limit or cursor
     */
    public Page<com.teamdesk.tasks.team.SystemEventRow> actions(UUID callerId, UUID taskId, Integer limit,
            String cursor) {
        visible(callerId, taskId);
        return events.ofTask(taskId, ACTION_EVENTS, limit, cursor);
    }

    /**
     * One page of the team's tasks the caller may see, newest first.
     *
     * @param scheduled "true": only scheduled tasks (WAITING, not handed to the queue, {@code runAt}
     *                  in the future, R24); "false": all others; null or blank: no filter
     * @param limit     1-500, null = 50
     * @param cursor    opaque cursor from the previous page, or null
     * @throws NotFoundException     caller not a member
     * @throws InvalidInputException bad status, kind, scheduled, limit or cursor
     */
    public Page<BackgroundTask> list(UUID callerId, UUID teamId, String status, String kind, String scheduled,
            Integer limit, String cursor) {
        Role role = access.requireMember(teamId, callerId);
        int n = Page.limit(limit);
        TaskStatus st = status == null || status.isBlank() ? null : NewTaskRequest.enumValue(TaskStatus.class, status, "status", null);
        TaskKind k = kind == null || kind.isBlank() ? null : kinds.parse(kind, "kind", "task.invalid");
        Boolean sched = scheduled == null || scheduled.isBlank() ? null : switch (scheduled.trim()) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> throw new InvalidInputException("task.invalid", "scheduled must be true or false.");
        };
        // The same (createdAt, id) cursor as the other lists; it refuses instants outside SQL's range.
        KeysetCursor after = KeysetCursor.decode(cursor);
        Instant afterAt = after == null ? null : after.createdAt();
        UUID afterId = after == null ? null : after.id();
        List<BackgroundTask> rows = reads.list(teamId, role.isStaff() ? null : callerId, st, k, sched, clock.instant(),
                afterAt, afterId, n + 1);
        return KeysetCursor.page(rows, n, BackgroundTask::createdAt, BackgroundTask::id);
    }

    /**
     * The file of a completed task, from its kind ({@link TaskKindHandler#result}; the export's CSV, R13).
     *
     * @throws NotFoundException not visible to the caller
     * @throws ConflictException ({@code task.not_completed}) not an export, or not COMPLETED
     * @throws GoneException     ({@code export.expired}) the 24 h are over and the CSV is gone
     */
    public TaskResult result(UUID callerId, UUID taskId) {
        BackgroundTask task = visible(callerId, taskId).task();
        return kinds.handler(task.kind()).result(task);
    }

    private record Visible(BackgroundTask task, Role role) {
    }

    private Visible visible(UUID callerId, UUID taskId) {
        BackgroundTask task = ledger.find(taskId).orElseThrow(TaskService::taskNotFound);
        Role role = access.roleOf(task.teamId(), callerId).orElseThrow(TaskService::taskNotFound);
        if (!role.isStaff() && !task.ownerId().equals(callerId)) {
            throw taskNotFound();
        }
        return new Visible(task, role);
    }

    static NotFoundException taskNotFound() {
        return new NotFoundException("task.not_found", "No such task among your teams' tasks.");
    }

}
