package com.teamdesk.tasks.task.batch;

import com.teamdesk.tasks.common.AppException;
import com.teamdesk.tasks.common.ClientText;
import com.teamdesk.tasks.common.ConflictException;
import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.common.Page;
import com.teamdesk.tasks.common.RefusedItem;
import com.teamdesk.tasks.common.UnprocessableException;
import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.task.engine.TaskDispatcher;
import com.teamdesk.tasks.task.engine.TaskKinds;
import com.teamdesk.tasks.task.idempotency.IdempotencyKeys;
import com.teamdesk.tasks.task.idempotency.IdempotentRequest;
import com.teamdesk.tasks.task.ledger.Dispatch;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger.NewChild;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger.Prerequisite;
import com.teamdesk.tasks.task.ledger.TaskReads;
import com.teamdesk.tasks.task.observe.TaskMetrics;
import com.teamdesk.tasks.task.observe.TaskTracing;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.Caller;
import com.teamdesk.tasks.task.spi.NewTaskRequest;
import com.teamdesk.tasks.task.spi.RefusedAt;
import com.teamdesk.tasks.task.spi.RequestField;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskKindHandler;
import com.teamdesk.tasks.team.KeysetCursor;
import com.teamdesk.tasks.team.Role;
import com.teamdesk.tasks.team.TeamAccess;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Issue 52 (R51-R54): what members ask of batches. A batch is created in ONE transaction (its row, its children in
 * one INSERT, their dependencies in one more), all items checked first by their kinds as one request: all accepted
 * or none stored, a refusal naming its item. Its children are dispatched after the commit (R18). Authorization is
 * the tasks': a member of the team creates and sees its batches (404 otherwise); a customer sees only their own.
 */
@ApplicationScoped
public class BatchService {
    private static final Logger LOG = Logger.getLogger(BatchService.class.getName());

    /** The status of an accepted batch. */
    public static final int ACCEPTED = 202;
    /** The create body's fields. */
    public static final Set<String> FIELDS = Set.of("label", "items", "completion", "onChildFailure",
            "completionWhenCancelled");
    /** Longest label (characters). */
    static final int MAX_LABEL = 200;
    /** {@code lastError} of a child cancelled with its batch. */
    public static final String CANCELLED_MESSAGE = "Cancelled with its batch by a member.";

    @Inject
    TeamAccess access;

    @Inject
    TaskKinds kinds;

    @Inject
    JdbcTaskLedger ledger;

    @Inject
    TaskReads reads;

    @Inject
    BatchStore store;

    @Inject
    Prerequisites prerequisites;

    @Inject
    Transactions transactions;

    @Inject
    IdempotencyKeys keys;

    @Inject
    TaskDispatcher dispatcher;

    @Inject
    TaskMetrics metrics;

    @Inject
    TaskTracing tracing;

    @Inject
    Clock clock;

    /** Most children one batch may have ({@code teamdesk.batch.max-size}). */
    @Inject
    @ConfigProperty(name = "teamdesk.batch.max-size", defaultValue = "1000")
    int maxSize;

    /** R24's tolerance for a {@code runAt} slightly in the past, in seconds. */
    @Inject
    @ConfigProperty(name = "teamdesk.task.run-at-skew-s", defaultValue = "60")
    long runAtSkewS;

    /**
     * A created (or replayed) batch.
     *
     * @param status   202
     * @param replayed true when an {@code Idempotency-Key} answered an earlier request
     */
    public record Created(Batch batch, int status, boolean replayed) {
    }

    private record Item(TaskKind kind, TaskKindHandler.Accepted<String> accepted, Instant runAt,
            Prerequisites.After after) {
    }

    /**
     * Creates a batch: {@code {label?, items: [task bodies, each with after? and afterFailure?], completion?: a task
     * body, onChildFailure?: CONTINUE|CANCEL_REST, completionWhenCancelled?: boolean}}.
     *
     * @param body   the request's JSON object (its top-level keys already checked against {@link #FIELDS})
     * @param fields the kinds' request fields ({@link TaskKinds#requestFields})
     * @param idem   the {@code Idempotency-Key} and fingerprint, or null
     * @throws NotFoundException     caller not a member; a prerequisite not among the team's tasks
     *                               ({@code task.prerequisite_not_found}, naming it)
     * @throws InvalidInputException {@code batch.invalid} (items missing, empty, too many, not objects; a bad label,
     *                               policy or completion); an item's own refusal, prefixed with {@code items[i]}
     * @throws ConflictException     {@code task.prerequisite_ended}
     */
    public Created create(UUID callerId, UUID teamId, JsonObject body, List<RequestField> fields,
            IdempotentRequest idem) {
        Role role = access.requireMember(teamId, callerId);
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        Optional<IdempotencyKeys.Stored> seen = idem == null ? Optional.empty() : keys.find(idem, now);
        if (seen.isPresent()) {
            return replay(seen.get());
        }
        Caller caller = new Caller(callerId, teamId, role);
        String label = label(body);
        Batch.OnChildFailure policy = NewTaskRequest.enumValue(Batch.OnChildFailure.class,
                Jsons.string(body, "onChildFailure"), "onChildFailure", Batch.OnChildFailure.CONTINUE);
        boolean whenCancelled = flag(body, "completionWhenCancelled");
        List<Item> items = items(body, fields, caller, now);
        BatchStore.Completion completion = completion(body, fields, caller);
        int[] depth = Prerequisites.depths(items.stream().map(Item::after).toList());
        Set<UUID> named = new LinkedHashSet<>();
        items.forEach(i -> named.addAll(i.after().tasks()));
        int levels = java.util.Arrays.stream(depth).max().orElse(0); // the longest chain among the items
        UUID batchId = UUID.randomUUID();
        List<UUID> ids = items.stream().map(i -> UUID.randomUUID()).toList();
        String traceParent = tracing.currentTraceParent();
        List<Dispatch> handOver = new ArrayList<>();
        Optional<IdempotencyKeys.Stored> raced = transactions.inNewTransaction(TxSite.REQUEST, () -> {
            if (idem != null) {
                Optional<IdempotencyKeys.Stored> earlier = keys.record(idem, batchId, ACCEPTED, now);
                if (earlier.isPresent()) {
                    return earlier;
                }
            }
            Map<UUID, Prerequisite> locked = prerequisites.lock(teamId, callerId, role, named);
            prerequisites.checkDepth(named, levels);
            store.insert(batchId, teamId, callerId, label, items.size(), policy, completion, whenCancelled, now);
            Set<Integer> awaited = new HashSet<>();
            items.forEach(i -> awaited.addAll(i.after().items()));
            List<NewChild> children = new ArrayList<>(items.size());
            handOver.clear(); // a retried transaction starts again
            List<UUID[]> edges = new ArrayList<>();
            for (int k = 0; k < items.size(); k++) {
                Item item = items.get(k);
                int waiting;
                try {
                    waiting = Prerequisites.waitingFor(item.after(), locked) + item.after().items().size();
                } catch (AppException e) {
                    throw new RefusedItem("items[" + k + "] (" + item.kind().name() + ")", e);
                }
                boolean dispatched = waiting == 0 && !item.runAt().isAfter(now);
                children.add(new NewChild(ids.get(k), item.kind(), item.accepted().scope(), item.accepted().params(),
                        item.runAt(), waiting, item.after().runAnyway(), awaited.contains(k), dispatched));
                if (dispatched) {
                    handOver.add(new Dispatch(TaskJobId.of(ids.get(k), 0), teamId, item.kind(), traceParent));
                }
                for (UUID t : item.after().tasks()) {
                    edges.add(new UUID[] {ids.get(k), t});
                }
                for (int p : item.after().items()) {
                    edges.add(new UUID[] {ids.get(k), ids.get(p)});
                }
            }
            ledger.insertChildren(teamId, callerId, batchId, children, now, traceParent);
            Set<UUID> ended = new HashSet<>();
            locked.values().stream().filter(Prerequisite::ended).forEach(p -> ended.add(p.id()));
            ledger.insertDependencies(edges, ended);
            return Optional.<IdempotencyKeys.Stored>empty();
        });
        if (raced.isPresent()) {
            return replay(raced.get());
        }
        items.forEach(i -> metrics.created(i.kind()));
        // R18 after the commit: the jobs of the children the INSERT marked dispatched; on failure the marks go back
        if (!dispatcher.addAllCommitted(handOver)) {
            try {
                ledger.undispatchBatch(batchId, now);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "batch.dispatch of " + batchId + " left to reconciliation (R20): " + e);
            }
        }
        return new Created(store.find(batchId).orElseThrow(BatchService::notFound), ACCEPTED, false);
    }

    private Created replay(IdempotencyKeys.Stored stored) {
        return new Created(store.find(stored.taskId()).orElseThrow(BatchService::notFound), stored.status(), true);
    }

    private static String label(JsonObject body) {
        String label = Jsons.string(body, "label");
        if (label == null) {
            return null;
        }
        label = label.strip();
        if (label.length() > MAX_LABEL || !ClientText.visible(label)) {
            throw invalid("label must be 1 to " + MAX_LABEL + " printable characters.");
        }
        return label;
    }

    private static boolean flag(JsonObject body, String key) {
        JsonValue v = body.get(key);
        if (v == null || v == JsonValue.NULL) {
            return false;
        }
        if (v == JsonValue.TRUE || v == JsonValue.FALSE) {
            return v == JsonValue.TRUE;
        }
        throw invalid(key + " must be true or false.");
    }

    /**
     * Reads every item, then lets each kind check its items together ({@link TaskKinds#acceptAll}: a reminder's
     * tickets in one read), all before anything is written; the first refusal names its item.
     */
    private List<Item> items(JsonObject body, List<RequestField> fields, Caller caller, Instant now) {
        JsonValue v = body.get("items");
        if (!(v instanceof JsonArray array) || array.isEmpty()) {
            throw invalid("items must be a non-empty array of task bodies.");
        }
        if (array.size() > maxSize) {
            throw invalid("A batch may have at most " + maxSize + " items; this one has " + array.size() + ".");
        }
        Set<String> allowed = new HashSet<>();
        fields.forEach(f -> allowed.add(f.name()));
        allowed.add(Prerequisites.AFTER);
        allowed.add(Prerequisites.AFTER_FAILURE);
        int n = array.size();
        TaskKind[] kindOf = new TaskKind[n];
        NewTaskRequest[] requests = new NewTaskRequest[n];
        Instant[] runAts = new Instant[n];
        Prerequisites.After[] afters = new Prerequisites.After[n];
        Map<TaskKind, List<Integer>> byKind = new java.util.LinkedHashMap<>();
        for (int k = 0; k < n; k++) {
            String which = "items[" + k + "]";
            try {
                if (!(array.get(k) instanceof JsonObject o)) {
                    throw invalid("it must be a JSON object (a task body).");
                }
                which = which + " (" + ClientText.echo(String.valueOf(Jsons.string(o, "kind"))) + ")";
                checkKeys(o, allowed);
                requests[k] = NewTaskRequest.of(o, fields);
                kindOf[k] = kind(requests[k]);
                runAts[k] = NewTaskRequest.runAt(requests[k].runAt(), now, runAtSkewS);
                afters[k] = prerequisites.parse(o, n, k);
            } catch (AppException e) {
                throw new RefusedItem(which, e);
            }
            byKind.computeIfAbsent(kindOf[k], x -> new ArrayList<>()).add(k);
        }
        List<TaskKindHandler.Accepted<String>> accepted = new ArrayList<>(java.util.Collections.nCopies(n, null));
        byKind.forEach((kind, indexes) -> {
            try {
                List<TaskKindHandler.Accepted<String>> ok = kinds.acceptAll(kind,
                        indexes.stream().map(k -> requests[k]).toList(), caller);
                for (int x = 0; x < indexes.size(); x++) {
                    accepted.set(indexes.get(x), ok.get(x));
                }
            } catch (RefusedAt e) {
                throw new RefusedItem("items[" + indexes.get(e.index()) + "] (" + kind.name() + ")", e.reason());
            }
        });
        List<Item> items = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            items.add(new Item(kindOf[k], accepted.get(k), runAts[k], afters[k]));
        }
        return items;
    }

    private TaskKind kind(NewTaskRequest req) {
        TaskKind kind = kinds.parseRequired(req.kind(), "kind", "task.invalid");
        if (kinds.handler(kind).completionOnly()) {
            throw new UnprocessableException("task.completion_only", kind.name()
                    + " runs only as a batch's completion.");
        }
        return kind;
    }

    private BatchStore.Completion completion(JsonObject body, List<RequestField> fields, Caller caller) {
        JsonValue v = body.get("completion");
        if (v == null || v == JsonValue.NULL) {
            return null;
        }
        if (!(v instanceof JsonObject o)) {
            throw invalid("completion must be a task body (a JSON object).");
        }
        try {
            Set<String> allowed = new HashSet<>();
            fields.forEach(f -> allowed.add(f.name()));
            allowed.remove(NewTaskRequest.RUN_AT.name());
            checkKeys(o, allowed);
            NewTaskRequest req = NewTaskRequest.of(o, fields);
            TaskKind kind = kinds.parseRequired(req.kind(), "kind", "task.invalid");
            TaskKindHandler.Accepted<String> accepted = kinds.accept(kind, req, caller);
            return new BatchStore.Completion(kind, accepted.scope(), accepted.params());
        } catch (AppException e) {
            throw new RefusedItem("completion", e);
        }
    }

    private static void checkKeys(JsonObject o, Set<String> allowed) {
        for (String key : o.keySet()) {
            if (!allowed.contains(key)) {
                throw new InvalidInputException("request.malformed", "Unknown field '" + ClientText.echo(key)
                        + "'; allowed: " + String.join(", ", allowed.stream().sorted().toList()) + ".");
            }
        }
    }

    /**
     * @return the batch with its counts, if the caller may see it
     * @throws NotFoundException ({@code batch.not_found}) missing, another team's, or (for a customer) not theirs
     */
    public Batch get(UUID callerId, UUID batchId) {
        Batch b = store.find(batchId).orElseThrow(BatchService::notFound);
        Role role = access.roleOf(b.teamId(), callerId).orElseThrow(BatchService::notFound);
        if (!role.isStaff() && !b.ownerId().equals(callerId)) {
            throw notFound();
        }
        return b;
    }

    /**
     * One page of a batch's children, newest first (keyset cursor as the task lists').
     *
     * @throws NotFoundException     as {@link #get}
     * @throws InvalidInputException bad limit or cursor
     */
    public Page<BackgroundTask> children(UUID callerId, UUID batchId, Integer limit, String cursor) {
        get(callerId, batchId);
        int n = Page.limit(limit);
        KeysetCursor after = KeysetCursor.decode(cursor);
        List<BackgroundTask> rows = reads.children(batchId, after == null ? null : after.createdAt(),
                after == null ? null : after.id(), n + 1);
        return KeysetCursor.page(rows, n, BackgroundTask::createdAt, BackgroundTask::id);
    }

    /**
     * One page of the team's batches the caller may see, newest first.
     *
     * @throws NotFoundException     caller not a member
     * @throws InvalidInputException bad limit or cursor
     */
    public Page<Batch> list(UUID callerId, UUID teamId, Integer limit, String cursor) {
        Role role = access.requireMember(teamId, callerId);
        int n = Page.limit(limit);
        KeysetCursor after = KeysetCursor.decode(cursor);
        List<Batch> rows = store.list(teamId, role.isStaff() ? null : callerId, after == null ? null : after.createdAt(),
                after == null ? null : after.id(), n + 1);
        return KeysetCursor.page(rows, n, Batch::createdAt, Batch::id);
    }

    /**
     * R52: cancels a batch: marks it, and cancels its waiting children as a member's cancel would (R23), in one
     * transaction that first locks the batch's row; running children finish. Once every child has ended, the
     * completion runs only if the batch says {@code completionWhenCancelled}. A batch cancelled already answers as it
     * is (idempotent).
     *
     * @return the batch as the cancel left it
     * @throws NotFoundException as {@link #get}
     * @throws ConflictException ({@code batch.finished}) every child had ended already
     */
    public Batch cancel(UUID callerId, UUID batchId) {
        Batch before = get(callerId, batchId);
        if (before.state() == Batch.State.CANCELLED) {
            return before;
        }
        Instant now = clock.instant();
        List<TaskJobId> cancelled = transactions.inNewTransaction(TxSite.REQUEST, () -> {
            store.lock(batchId);
            Batch locked = store.find(batchId).orElseThrow(BatchService::notFound);
            if (locked.state() == Batch.State.FINISHED) {
                throw new ConflictException("batch.finished", "Every task of this batch has ended; there is nothing"
                        + " to cancel.");
            }
            if (!store.markCancelled(batchId, callerId, now)) {
                return List.<TaskJobId>of();
            }
            return ledger.cancelBatchWaiting(batchId, callerId, CANCELLED_MESSAGE, now);
        });
        cancelled.forEach(job -> dispatcher.removeQueued(job));
        LOG.info(() -> "batch.cancelled " + batchId + " by " + callerId + ": " + cancelled.size() + " waiting tasks");
        if (before.completionKind() != null) {
            dispatcher.dispatchReleased(TxSite.REQUEST, null, batchId, 1);
        }
        return store.find(batchId).orElseThrow(BatchService::notFound);
    }

    static NotFoundException notFound() {
        return new NotFoundException("batch.not_found", "No such batch among your teams' batches.");
    }

    private static InvalidInputException invalid(String detail) {
        return new InvalidInputException("batch.invalid", detail);
    }
}
