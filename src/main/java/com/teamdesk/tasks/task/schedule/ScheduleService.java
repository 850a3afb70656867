package com.teamdesk.tasks.task.schedule;

import com.teamdesk.tasks.common.ConflictException;
import com.teamdesk.tasks.common.ForbiddenException;
import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.common.Page;
import com.teamdesk.tasks.common.PreconditionFailedException;
import com.teamdesk.tasks.common.UnprocessableException;
import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.task.engine.TaskDispatcher;
import com.teamdesk.tasks.task.engine.TaskKinds;
import com.teamdesk.tasks.task.idempotency.IdempotencyKeys;
import com.teamdesk.tasks.task.idempotency.IdempotentRequest;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.Caller;
import com.teamdesk.tasks.task.spi.NewTaskRequest;
import com.teamdesk.tasks.task.spi.RequestField;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskKindHandler;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.team.KeysetCursor;
import com.teamdesk.tasks.team.Role;
import com.teamdesk.tasks.team.SystemEventService;
import com.teamdesk.tasks.team.TeamAccess;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Issue 31 (R41): a team's recurring tasks, as members and operators ask for them. Authorization as for tasks:
 * any member of the team may schedule; a customer only SELF-scope tasks and sees and changes only their own
 * schedules; staff and owners see and change the team's. A schedule's task is validated by its kind exactly as
 * a task's create body is (without {@code runAt}: the schedule says when). Every change is one transaction.
 *
 * <p>Why one class of about 500 lines: a schedule's rules (who may see and change it, its version, its kind's
 * validation, resumable or not) are checked in the same order by every action, and each action is one transaction;
 * split by action, each part would import the same checks. The SQL is {@link ScheduleStore}'s, the slots {@link
 * CronSlots}'s, the due tasks {@link ScheduleMaterializer}'s.
 */
@ApplicationScoped
public class ScheduleService {
    /** Status recorded with a create's Idempotency-Key (201). */
    static final int CREATED = 201;

    @Inject
    ScheduleStore store;
    @Inject
    TeamAccess access;
    @Inject
    TaskKinds kinds;
    @Inject
    JdbcTaskLedger ledger;
    @Inject
    TaskDispatcher dispatcher;
    @Inject
    IdempotencyKeys keys;
    @Inject
    Transactions transactions;
    @Inject
    SystemEventService events;
    @Inject
    Clock clock;

    @Inject
    @ConfigProperty(name = "teamdesk.schedule.max-per-team", defaultValue = "100")
    int maxPerTeam;

    /**
     * A schedule as the API shows it, with what it will do and what it did.
     *
     * @param schedule    the row
     * @param nextSlots   its next 5 slots (empty while not enabled), as instants (the API shows each in the
     *                    schedule's zone and in UTC)
     * @param occurrences its last 10 occurrences and skipped slots, newest first (only {@link #get})
     */
    public record View(Schedule schedule, List<Instant> nextSlots, List<ScheduleStore.Occurrence> occurrences) {
    }

    /**
     * A created schedule, or the one an earlier request with the same Idempotency-Key created.
     *
     * @param replayed true for the earlier one
     */
    public record Created(View view, boolean replayed) {
    }

    /**
     * Creates a schedule. Body: {@code name?}, {@code cron}, {@code timeZone}, {@code task} (a task's create body
     * without {@code runAt}), {@code missedSlots?} ({@code RUN_ONCE} default, {@code SKIP}), {@code overlap?}
     * ({@code SKIP} default, {@code QUEUE}), {@code enabled?} (default true).
     *
     * @param idem the Idempotency-Key, or null
     * @throws NotFoundException      ({@code team.not_found}) the caller is not a member
     * @throws InvalidInputException  {@code schedule.invalid}, {@code schedule.cron_invalid},
     *                                {@code schedule.zone_invalid}, or the kind's own codes
     * @throws UnprocessableException {@code schedule.too_frequent}; {@code schedule.too_many} (the team has
     *                                {@code teamdesk.schedule.max-per-team}, default 100);
     *                                {@code idempotency.key_reused}
     * @throws ForbiddenException     ({@code schedule.staff_only}) a customer asked for a TEAM-scope task, or the
     *                                kind's own
     */
    public Created create(UUID callerId, UUID teamId, JsonObject body, IdempotentRequest idem) {
        Role role = access.requireMember(teamId, callerId);
        Instant now = now();
        Optional<IdempotencyKeys.Stored> seen = idem == null ? Optional.empty() : keys.find(idem, now);
        if (seen.isPresent()) {
            return new Created(view(replayedSchedule(seen.get())), true);
        }
        Draft d = draft(body, null, new Caller(callerId, teamId, role), now);
        UUID id = UUID.randomUUID();
        Schedule s = new Schedule(id, teamId, callerId, d.name(), d.kind(), d.scope(), d.params(), d.slots().expression(),
                d.slots().zone().getId(), d.missed(), d.overlap(), d.enabled(), d.enabled() ? d.slots().nextAfter(now) : null,
                null, null, 1, callerId, now, callerId, now);
        Optional<IdempotencyKeys.Stored> raced = transactions.inNewTransaction(TxSite.REQUEST, () -> {
            if (idem != null) {
                Optional<IdempotencyKeys.Stored> earlier = keys.record(idem, id, CREATED, now);
                if (earlier.isPresent()) {
                    return earlier;
                }
            }
            if (store.lockTeamAndCount(teamId) >= maxPerTeam) {
                throw new UnprocessableException("schedule.too_many", "The team has " + maxPerTeam
                        + " schedules, the most it may have; delete one first.");
            }
            store.insert(s);
            return Optional.<IdempotencyKeys.Stored>empty();
        });
        if (raced.isPresent()) {
            return new Created(view(replayedSchedule(raced.get())), true);
        }
        return new Created(view(s), false);
    }

    /**
     * @return a page of the team's schedules the caller may see, newest first
     * @throws NotFoundException ({@code team.not_found}) not a member
     */
    public Page<View> list(UUID callerId, UUID teamId, String cursor, Integer limit) {
        Role role = access.requireMember(teamId, callerId);
        int n = Page.limit(limit);
        List<Schedule> rows = store.list(teamId, role.isStaff() ? null : callerId, KeysetCursor.decode(cursor), n + 1);
        Page<Schedule> page = KeysetCursor.page(rows, n, Schedule::createdAt, Schedule::id);
        return new Page<>(page.items().stream().map(this::view).toList(), page.nextCursor());
    }

    /**
     * @return the schedule with its next slots and its last occurrences
     * @throws NotFoundException ({@code schedule.not_found}) missing or not visible to the caller
     */
    public View get(UUID callerId, UUID scheduleId) {
        Schedule s = visible(callerId, scheduleId);
        return new View(s, nextSlots(s), store.occurrences(s.id(), 10));
    }

    /**
     * Changes a schedule if its version is still {@code expectedVersion} (If-Match). Fields as for create, each
     * optional; a changed expression or zone recomputes the next slot from now.
     *
     * @throws PreconditionFailedException ({@code schedule.version_mismatch}) it changed since
     */
    public View update(UUID callerId, UUID scheduleId, int expectedVersion, JsonObject body) {
        Instant now = now();
        return transactions.inNewTransaction(TxSite.REQUEST, () -> {
            Schedule s = locked(callerId, scheduleId);
            requireVersion(s, expectedVersion);
            Role role = access.requireMember(s.teamId(), callerId);
            Draft d = draft(body, s, new Caller(s.ownerId().equals(callerId) ? callerId : s.ownerId(), s.teamId(),
                    s.ownerId().equals(callerId) ? role : access.roleOf(s.teamId(), s.ownerId()).orElse(role)), now);
            boolean when = !d.slots().expression().equals(s.cron()) || !d.slots().zone().getId().equals(s.timeZone());
            boolean enabled = body.containsKey("enabled") ? d.enabled() : s.enabled();
            Instant next = !enabled ? null : (when || !s.enabled() || s.nextSlotAt() == null) ? d.slots().nextAfter(now)
                    : s.nextSlotAt();
            if (d.name().equals(s.name()) && d.kind().equals(s.kind()) && d.scope() == s.scope()
                    && sameJson(d.params(), s.params()) && !when && d.missed() == s.missedSlots()
                    && d.overlap() == s.overlap() && enabled == s.enabled()) {
                return view(s); // nothing changed: the version (ETag) stays, so other clients' If-Match holds
            }
            if (enabled && !s.enabled() && body.get("task") == null) {
                requireResumable(s); // a new task body was accepted by draft() just now
            }
            Schedule changed = new Schedule(s.id(), s.teamId(), s.ownerId(), d.name(), d.kind(), d.scope(), d.params(),
                    d.slots().expression(), d.slots().zone().getId(), d.missed(), d.overlap(), enabled, next, s.lastSlotAt(),
                    enabled ? null : s.disabledReason(), s.version() + 1, s.createdBy(), s.createdAt(), callerId, now);
            if (!store.update(changed, s.version())) {
                throw mismatch(s.version() + 1, expectedVersion);
            }
            return view(changed);
        });
    }

    /** Pauses: no slot is materialised until it is resumed. Idempotent. */
    public View pause(UUID callerId, UUID scheduleId) {
        return setEnabled(callerId, scheduleId, false, null);
    }

    /** Resumes: the next slot after now; the slots while it was paused are not run. Idempotent. */
    public View resume(UUID callerId, UUID scheduleId) {
        return setEnabled(callerId, scheduleId, true, null);
    }

    /**
     * An operator pauses any team's schedule (audited {@code admin.schedule.paused}).
     *
     * @throws NotFoundException ({@code schedule.not_found})
     */
    public View pauseByOperator(UUID operatorId, UUID scheduleId) {
        return setEnabled(operatorId, scheduleId, false, "Paused by an operator.");
    }

    private View setEnabled(UUID callerId, UUID scheduleId, boolean enabled, String operatorReason) {
        Instant now = now();
        return transactions.inNewTransaction(TxSite.REQUEST, () -> {
            Schedule s = operatorReason == null ? locked(callerId, scheduleId)
                    : store.lock(scheduleId).orElseThrow(ScheduleService::notFound);
            if (s.enabled() == enabled) {
                return view(s);
            }
            Instant next = enabled ? s.slots().nextAfter(now) : null;
            if (enabled && next == null) {
                throw new UnprocessableException("schedule.cron_invalid", "The cron expression has no slot in the next 5"
                        + " years.");
            }
            if (enabled) {
                requireResumable(s);
            }
            Schedule changed = new Schedule(s.id(), s.teamId(), s.ownerId(), s.name(), s.kind(), s.scope(), s.params(),
                    s.cron(), s.timeZone(), s.missedSlots(), s.overlap(), enabled, next, s.lastSlotAt(), operatorReason,
                    s.version() + 1, s.createdBy(), s.createdAt(), callerId, now);
            store.update(changed, s.version());
            if (operatorReason != null) {
                events.append(s.teamId(), "admin.schedule.paused", callerId, null, Jsons.PROVIDER.createObjectBuilder()
                        .add("scheduleId", s.id().toString()).build(), now);
            }
            return view(changed);
        });
    }

    /**
     * Deletes a schedule; its occurrences stay as tasks (no longer linked), its skipped slots go with it.
     *
     * @throws NotFoundException ({@code schedule.not_found})
     */
    public void delete(UUID callerId, UUID scheduleId) {
        transactions.inNewTransaction(TxSite.REQUEST, () -> {
            Schedule s = locked(callerId, scheduleId);
            store.delete(s.id());
        });
    }

    /**
     * "Run now": an extra occurrence now, not a slot (its {@code slotAt} is null; the schedule's slots and
     * overlap rule are unchanged), dispatched at once.
     *
     * @return the task
     * @throws NotFoundException ({@code schedule.not_found})
     * @throws ConflictException ({@code schedule.owner_left}, {@code schedule.kind_gone}) or the kind's own refusal
     *                           of the stored task now ({@code reminder.ticket_closed}), as {@link #resume} answers
     */
    public BackgroundTask runNow(UUID callerId, UUID scheduleId) {
        Instant now = now();
        UUID id = UUID.randomUUID();
        BackgroundTask task = transactions.inNewTransaction(TxSite.REQUEST, () -> {
            Schedule s = locked(callerId, scheduleId);
            requireResumable(s); // as resume and POST /tasks refuse it: a closed ticket, an owner gone (issue 49)
            return ledger.insertOccurrence(id, s.kind(), s.teamId(), s.ownerId(), s.scope(), s.params(), s.id(), null, now)
                    .orElseThrow(() -> new ConflictException("schedule.run_now", "The occurrence was not created."));
        });
        try {
            transactions.inNewTransaction(TxSite.REQUEST, () -> dispatcher.dispatchNow(id));
        } catch (RuntimeException e) {
            // the dispatch sweep hands it to the queue within a tick (R18)
        }
        return ledger.find(id).orElse(task);
    }

    /**
     * Every team's schedules for an operator.
     *
     * @param dueOnly only those whose next slot has passed and is not materialised yet
     */
    public List<View> listAll(boolean dueOnly, int limit) {
        return store.listAll(dueOnly ? now() : null, limit).stream().map(this::view).toList();
    }

    // ---- helpers ----

    /** A create or update body, validated: nothing is stored when it throws. */
    private record Draft(String name, TaskKind kind, TaskScope scope, String params, CronSlots slots,
                         Schedule.MissedSlots missed, Schedule.Overlap overlap, boolean enabled) {
    }

    private Draft draft(JsonObject body, Schedule base, Caller owner, Instant now) {
        if (body == null) {
            throw new InvalidInputException("schedule.invalid", "A JSON object body is required.");
        }
        String cron = text(body, "cron", base == null ? null : base.cron());
        String zone = text(body, "timeZone", base == null ? null : base.timeZone());
        if (cron == null) {
            throw new InvalidInputException("schedule.cron_invalid", "cron is required, e.g. \"0 9 * * MON\".");
        }
        if (zone == null) {
            throw new InvalidInputException("schedule.zone_invalid", "timeZone is required, e.g. \"Asia/Shanghai\".");
        }
        CronSlots slots;
        try {
            slots = CronSlots.parse(cron, zone);
        } catch (InvalidInputException e) {
            if (e.code().equals("schedule.too_frequent")) {
                throw new UnprocessableException(e.code(), e.getMessage());
            }
            throw e;
        }
        TaskKind kind;
        TaskScope scope;
        String params;
        JsonValue task = body.get("task");
        if (task == null && base != null) {
            kind = base.kind();
            scope = base.scope();
            params = base.params();
        } else {
            if (!(task instanceof JsonObject t)) {
                throw new InvalidInputException("schedule.invalid", "task must be an object: a task's create body,"
                        + " e.g. {\"kind\":\"EXPORT\",\"scope\":\"TEAM\"}.");
            }
            if (t.containsKey("runAt")) {
                throw new InvalidInputException("schedule.invalid", "task.runAt is not allowed: the schedule says when.");
            }
            List<String> taskFields = kinds.requestFields().stream().map(RequestField::name).toList();
            for (String key : t.keySet()) {
                if (!taskFields.contains(key)) { // as a task's create body refuses it (request.malformed there)
                    throw new InvalidInputException("schedule.invalid", "Unknown field \"task."
                            + com.teamdesk.tasks.common.ClientText.echo(key) + "\"; a task has " + taskFields + ".");
                }
            }
            NewTaskRequest req = NewTaskRequest.of(t, kinds.requestFields());
            kind = kinds.parseRequired(req.kind(), "task.kind", "task.invalid");
            TaskKindHandler.Accepted<String> accepted = kinds.accept(kind, req, owner);
            if (!owner.role().isStaff() && accepted.scope() != TaskScope.SELF) {
                throw new ForbiddenException("schedule.staff_only", "A customer schedules only SELF-scope tasks.");
            }
            scope = accepted.scope();
            params = accepted.params();
        }
        String name = text(body, "name", base == null ? kind.name() + " " + slots.expression() : base.name());
        if (!com.teamdesk.tasks.common.ClientText.visible(name) || name.length() > 200
                || name.chars().anyMatch(Character::isISOControl)) {
            throw new InvalidInputException("schedule.invalid", "name must be 1-200 characters without control"
                    + " characters.");
        }
        Schedule.MissedSlots missed = choice(body, "missedSlots", Schedule.MissedSlots.class,
                base == null ? Schedule.MissedSlots.RUN_ONCE : base.missedSlots());
        Schedule.Overlap overlap = choice(body, "overlap", Schedule.Overlap.class,
                base == null ? Schedule.Overlap.SKIP : base.overlap());
        JsonValue e = body.get("enabled");
        boolean enabled;
        if (e == null || e == JsonValue.NULL) {
            enabled = base == null || base.enabled();
        } else if (e == JsonValue.TRUE || e == JsonValue.FALSE) {
            enabled = e == JsonValue.TRUE;
        } else {
            throw new InvalidInputException("schedule.invalid", "enabled must be true or false.");
        }
        for (String key : body.keySet()) {
            if (!List.of("name", "cron", "timeZone", "task", "missedSlots", "overlap", "enabled").contains(key)) {
                throw new InvalidInputException("schedule.invalid", "Unknown field " + "\"" + com.teamdesk.tasks.common.ClientText.echo(key) + "\""
                        + "; a schedule has name, cron, timeZone, task, missedSlots, overlap and enabled.");
            }
        }
        return new Draft(name.strip(), kind, scope, params, slots, missed, overlap, enabled);
    }

    private static String text(JsonObject body, String key, String fallback) {
        JsonValue v = body.get(key);
        if (v == null || v == JsonValue.NULL) {
            return fallback;
        }
        if (v.getValueType() != JsonValue.ValueType.STRING) {
            throw new InvalidInputException("schedule.invalid", key + " must be a string.");
        }
        return body.getString(key);
    }

    private static <E extends Enum<E>> E choice(JsonObject body, String key, Class<E> type, E fallback) {
        String v = text(body, key, null);
        if (v == null) {
            return fallback;
        }
        for (E c : type.getEnumConstants()) {
            if (c.name().equals(v)) {
                return c;
            }
        }
        throw new InvalidInputException("schedule.invalid", key + " must be one of "
                + java.util.Arrays.toString(type.getEnumConstants()) + ".");
    }

    /**
     * @return true when two JSON texts hold the same value: the stored params come back from a {@code jsonb} column
     *         with its own key order and spacing, so a PATCH that repeats the task's body is a no-op (issue 49)
     */
    private static boolean sameJson(String a, String b) {
        try (var ra = Jsons.PROVIDER.createReader(new java.io.StringReader(a));
                var rb = Jsons.PROVIDER.createReader(new java.io.StringReader(b))) {
            return ra.readValue().equals(rb.readValue());
        }
    }

    private View view(Schedule s) {
        return new View(s, nextSlots(s), List.of());
    }

    private static List<Instant> nextSlots(Schedule s) {
        if (!s.enabled() || s.nextSlotAt() == null) {
            return List.of();
        }
        List<Instant> out = new java.util.ArrayList<>(List.of(s.nextSlotAt()));
        try {
            out.addAll(s.slots().next(s.nextSlotAt(), 4));
        } catch (InvalidInputException e) {
            // an expression this version no longer reads: the sweep disables it
        }
        return out;
    }

    /** @return the schedule if the caller may see it (a customer: only their own) */
    private Schedule visible(UUID callerId, UUID scheduleId) {
        Schedule s = store.find(scheduleId).orElseThrow(ScheduleService::notFound);
        requireVisible(callerId, s);
        return s;
    }

    /** @return the schedule, locked for the caller's transaction, if the caller may change it */
    private Schedule locked(UUID callerId, UUID scheduleId) {
        Schedule s = store.lock(scheduleId).orElseThrow(ScheduleService::notFound);
        requireVisible(callerId, s);
        return s;
    }

    private void requireVisible(UUID callerId, Schedule s) {
        Optional<Role> role = access.roleOf(s.teamId(), callerId);
        if (role.isEmpty() || (!role.get().isStaff() && !s.ownerId().equals(callerId))) {
            throw notFound();
        }
    }

    /**
     * A paused or system-disabled schedule is enabled again only when its owner is still a member and its kind
     * accepts its stored task now (e.g. a reminder's ticket is open again).
     *
     * @throws ConflictException ({@code schedule.owner_left}) or the kind's own code
     */
    private void requireResumable(Schedule s) {
        Role ownerRole = access.roleOf(s.teamId(), s.ownerId()).orElseThrow(() -> new ConflictException(
                "schedule.owner_left", "Its owner is no longer a member of the team; create a new schedule."));
        if (!kinds.kinds().contains(s.kind())) {
            throw new ConflictException("schedule.kind_gone", "Its kind " + s.kind().name() + " is not offered any more.");
        }
        kinds.handler(s.kind()).checkResumable(s.params(), new Caller(s.ownerId(), s.teamId(), ownerRole));
    }

    private static void requireVersion(Schedule s, int expected) {
        if (expected != ANY_VERSION && expected != s.version()) {
            throw mismatch(s.version(), expected);
        }
    }

    private static PreconditionFailedException mismatch(int current, int expected) {
        return new PreconditionFailedException("schedule.version_mismatch", "The schedule changed: it is at version "
                + current + ", If-Match said " + (expected == NO_VERSION ? "no strong version" : expected) + ".");
    }

    /** {@code expectedVersion} of {@code If-Match: *}: any current version matches. */
    public static final int ANY_VERSION = -1;
    /** {@code expectedVersion} when If-Match held no strong validator: nothing matches (412). */
    public static final int NO_VERSION = -2;

    private Schedule replayedSchedule(IdempotencyKeys.Stored stored) {
        return store.find(stored.taskId()).orElseThrow(ScheduleService::notFound);
    }

    private static NotFoundException notFound() {
        return new NotFoundException("schedule.not_found", "No such schedule.");
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }
}
