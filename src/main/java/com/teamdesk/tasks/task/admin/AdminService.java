package com.teamdesk.tasks.task.admin;

import com.teamdesk.tasks.common.ConflictException;
import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.common.Page;
import com.teamdesk.tasks.platform.DatabaseClock;
import com.teamdesk.tasks.platform.InstanceId;
import com.teamdesk.tasks.platform.RedisResources;
import com.teamdesk.tasks.queue.JobState;
import com.teamdesk.tasks.queue.WorkerInfo;
import com.teamdesk.tasks.task.admin.AdminViews.AdminExecution;
import com.teamdesk.tasks.task.admin.AdminViews.AdminTask;
import com.teamdesk.tasks.task.admin.AdminViews.BulkRetry;
import com.teamdesk.tasks.task.admin.AdminViews.Count;
import com.teamdesk.tasks.task.admin.AdminViews.ExecutionSummary;
import com.teamdesk.tasks.task.admin.AdminViews.InstanceTimers;
import com.teamdesk.tasks.task.admin.AdminViews.OutcomeCount;
import com.teamdesk.tasks.task.admin.AdminViews.Overview;
import com.teamdesk.tasks.task.admin.AdminViews.Skipped;
import com.teamdesk.tasks.task.admin.AdminViews.WorkerView;
import com.teamdesk.tasks.task.ledger.ExecutionOutcome;
import com.teamdesk.tasks.task.service.TaskRuns;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskStatus;
import com.teamdesk.tasks.task.sweep.SweepStatus;
import com.teamdesk.tasks.task.sweep.TaskTimers;
import com.teamdesk.tasks.task.sweep.TimerPauses;
import com.teamdesk.tasks.team.KeysetCursor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Logger;

/**
 * Application service of the operator API (issue 14). Callers are operators (the resource requires the
 * token group {@code operator}); every action is written to the system event log with the operator as
 * actor ({@code admin.*} events; team null for engine-wide actions).
 *
 * <p>Why one class of about 400 lines: it is the one place that reads operators' input (filters, durations, outcomes)
 * and writes the audit event of each action, so every operator action passes the same checks; the reads are {@link
 * JdbcTaskAdmin}'s and the JSON shapes {@link AdminViews}'.
 */
@ApplicationScoped
public class AdminService {
    private static final Logger LOG = Logger.getLogger(AdminService.class.getName());
    /** Most tasks one bulk retry handles. */
    public static final int MAX_BULK_RETRY = 500;
    /** Default bound of a bulk retry. */
    public static final int DEFAULT_BULK_RETRY = 100;
    /** How long run-now waits for the sweep. */
    /** The executions filter's name of an execution not ended yet (R44). */
    private static final String RUNNING = "RUNNING";
    /** Longest {@code worker} filter (worker ids are far shorter). */
    private static final int MAX_WORKER_FILTER = 200;
    private static final Duration RUN_NOW_WAIT = Duration.ofSeconds(120);

    @Inject
    JdbcTaskAdmin admin;

    @Inject
    com.teamdesk.tasks.team.SystemEventService events;

    @Inject
    com.teamdesk.tasks.task.engine.TaskKinds kinds;

    @Inject
    RedisResources redis;

    @Inject
    TaskTimers timers;

    @Inject
    TimerPauses pauses;

    @Inject
    TaskRuns runs;

    @Inject
    Clock clock;

    @Inject
    DatabaseClock databaseClock;

    /** @return the overview: counts by status × kind, backlog, RUNNING runs with lease age, queue counts */
    public Overview overview() {
        Instant now = clock.instant();
        Map<String, Long> found = new HashMap<>();
        for (Count c : admin.counts()) {
            found.put(c.status() + "/" + c.kind(), c.count());
        }
        List<Count> counts = new ArrayList<>();
        for (TaskStatus s : TaskStatus.values()) {
            for (TaskKind k : kinds.kinds()) {
                counts.add(new Count(s, k.name(), found.getOrDefault(s + "/" + k, 0L)));
            }
        }
        Long oldest = admin.oldestWaiting(now).map(t -> Math.max(0, now.toEpochMilli() - t.toEpochMilli())).orElse(null);
        long[] waiting = admin.waitingForOthersAndOpenBatches();
        return new Overview(now, counts, oldest, admin.dueUndispatched(now), waiting[0], waiting[1],
                admin.running(now, 100), queue());
    }

    /** @return the queue's jobs by state, lower-case state names (waiting, delayed, active, completed, failed) */
    public Map<String, Long> queue() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Map.Entry<JobState, Long> e : redis.taskQueue().counts().entrySet()) {
            out.put(e.getKey().name().toLowerCase(Locale.ROOT), e.getValue());
        }
        return out;
    }

    /** @return every queue worker seen in the last day, live first, then gone (R22) */
    public List<WorkerView> workers() {
        List<WorkerView> out = new ArrayList<>();
        for (WorkerInfo w : redis.taskQueue().workers()) {
            out.add(new WorkerView(w.id(), w.host(), w.live() ? "live" : "gone",
                    w.startedAtMs() == 0 ? null : Instant.ofEpochMilli(w.startedAtMs()), w.concurrency(), w.busy(),
                    w.lastBeatMs() == 0 ? null : Instant.ofEpochMilli(w.lastBeatMs())));
        }
        return out;
    }

    /** @return the sweeps of every instance that reported them (this one first, fresh) */
    public List<InstanceTimers> timers() {
        List<InstanceTimers> out = new ArrayList<>();
        Map<String, String> reported = redis.redis().hgetAll(com.teamdesk.tasks.task.sweep.TimerReports.statusKey(redis.prefix()));
        List<JsonObject> mine = new ArrayList<>();
        for (SweepStatus s : timers.status()) {
            mine.add(Jsons.PROVIDER.createObjectBuilder().add("name", s.name()).add("schedule", s.schedule())
                    .add("paused", s.paused()).add("runs", s.runs()).add("failures", s.failures())
                    .add("consecutiveFailures", s.consecutiveFailures()).add("skipped", s.skipped())
                    .add("lastStart", str(s.lastStart())).add("lastEnd", str(s.lastEnd()))
                    .add("lastOutcome", s.lastOutcome() == null ? JsonValue.NULL : Jsons.PROVIDER.createValue(s.lastOutcome()))
                    .add("lastHandled", s.lastHandled()).add("nextTimeout", str(s.nextTimeout())).build());
        }
        out.add(new InstanceTimers(InstanceId.get(), clock.instant(), true, mine, databaseClock.offset().toMillis()));
        Instant stale = clock.instant().minus(Duration.ofDays(1));
        for (Map.Entry<String, String> e : reported.entrySet()) {
            if (e.getKey().equals(InstanceId.get())) {
                continue;
            }
            try (JsonReader r = Jsons.PROVIDER.createReader(new StringReader(e.getValue()))) {
                JsonObject o = r.readObject();
                Instant at = Instant.parse(o.getString("reportedAt"));
                if (at.isBefore(stale)) {
                    redis.redis().hdel(com.teamdesk.tasks.task.sweep.TimerReports.statusKey(redis.prefix()), e.getKey());
                    continue;
                }
                List<JsonObject> list = o.getJsonArray("timers").getValuesAs(JsonObject.class);
                out.add(new InstanceTimers(e.getKey(), at, false, list,
                        o.containsKey("clockOffsetMs") ? o.getJsonNumber("clockOffsetMs").longValue() : null));
            } catch (RuntimeException ex) {
                LOG.fine(() -> "unreadable timer status of " + e.getKey() + ": " + ex);
            }
        }
        return out;
    }

    /**
     * Pauses a sweep on every instance (the flag lives in PostgreSQL; each tick checks it).
     *
     * @return the sweep's status on this instance
     * @throws NotFoundException ({@code timer.not_found}) no such sweep
     */
    public SweepStatus pause(UUID operator, String name) {
        check(name);
        boolean changed = pauses.pause(name, operator, clock.instant());
        audit(null, "admin.timer.paused", operator, null, "timer", name, changed);
        return timers.status(name);
    }

    /** Resumes a paused sweep on every instance. @throws NotFoundException no such sweep */
    public SweepStatus resume(UUID operator, String name) {
        check(name);
        boolean changed = pauses.resume(name);
        audit(null, "admin.timer.resumed", operator, null, "timer", name, changed);
        return timers.status(name);
    }

    /**
     * Runs a sweep once now, on this instance (also when paused), and waits for it.
     *
     * @throws NotFoundException  no such sweep
     * @throws ConflictException  ({@code timer.busy}) a tick of it is running on this instance
     */
    public SweepStatus run(UUID operator, String name) {
        check(name);
        audit(null, "admin.timer.run", operator, null, "timer", name, true);
        return timers.runNow(name, RUN_NOW_WAIT).orElseThrow(() -> new ConflictException("timer.busy",
                "The " + name + " sweep is running on this instance; try again when it ended."));
    }

    /**
     * One page of tasks across teams, newest first.
     *
     * @param olderThan an ISO-8601 duration ({@code PT10M}: created more than 10 minutes ago) or instant
     * @throws InvalidInputException a bad filter, limit or cursor
     */
    public Page<AdminTask> list(String status, String kind, String team, String olderThan, Integer limit,
            String cursor) {
        int n = Page.limit(limit);
        JdbcTaskAdmin.Filter f = filter(status, kind, team, olderThan);
        KeysetCursor after = KeysetCursor.decode(cursor);
        List<AdminTask> rows = admin.list(f, after == null ? null : after.createdAt(), after == null ? null : after.id(),
                n + 1);
        return KeysetCursor.page(rows, n, AdminTask::createdAt, AdminTask::id);
    }

    /** @return a task with every field but the CSV. @throws NotFoundException ({@code task.not_found}) */
    public AdminTask get(UUID taskId) {
        return admin.find(taskId).orElseThrow(() -> new NotFoundException("task.not_found", "No such task."));
    }

    /**
     * Retries FAILED tasks matching the filter (R15/R16 for each: never restoring a lost permission),
     * oldest first, at most {@code limit} (default 100, at most 500).
     *
     * @throws InvalidInputException a bad filter or limit
     */
    public BulkRetry retry(UUID operator, String kind, String team, String olderThan, Integer limit) {
        int n = limit == null ? DEFAULT_BULK_RETRY : limit;
        if (n < 1 || n > MAX_BULK_RETRY) {
            throw new InvalidInputException("admin.retry_limit", "limit must be between 1 and " + MAX_BULK_RETRY + ".");
        }
        JdbcTaskAdmin.Filter f = filter(null, kind, team, olderThan);
        List<UUID> retried = new ArrayList<>();
        List<Skipped> skipped = new ArrayList<>();
        for (UUID id : admin.failedMatching(f, n)) {
            Optional<String> refused = runs.retryByOperator(id);
            if (refused.isPresent()) {
                skipped.add(new Skipped(id, refused.get()));
            } else {
                retried.add(id);
                admin.find(id).ifPresent(t -> audit(t.teamId(), "admin.task.retried", operator, id, "run",
                        Integer.toString(t.run()), true));
            }
        }
        events.append(null, "admin.tasks.bulk_retry", operator, null, Jsons.PROVIDER.createObjectBuilder()
                .add("kind", kind == null ? "" : kind).add("team", team == null ? "" : team)
                .add("olderThan", olderThan == null ? "" : olderThan).add("limit", n)
                .add("retried", retried.size()).add("skipped", skipped.size()).build(), clock.instant());
        return new BulkRetry(n, retried, skipped);
    }

    private JdbcTaskAdmin.Filter filter(String status, String kind, String team, String olderThan) {
        TaskStatus st = blank(status) ? null : parse(TaskStatus.class, status, "status");
        TaskKind k = blank(kind) ? null : kinds.parse(kind, "kind", "filters.invalid");
        UUID teamId = teamFilter(team);
        return new JdbcTaskAdmin.Filter(st, k, teamId, pointInTime(olderThan, "olderThan"));
    }

    /**
     * @return null for blank; {@code now - d} for an ISO-8601 duration {@code d} ({@code PT10M}); the instant
     *         itself for an ISO-8601 instant
     * @throws InvalidInputException ({@code filters.invalid}) anything else, or out of range
     */
    private Instant pointInTime(String value, String field) {
        if (blank(value)) {
            return null;
        }
        String v = value.trim();
        Instant at;
        try {
            at = v.startsWith("P") || v.startsWith("p") ? clock.instant().minus(Duration.parse(v)) : Instant.parse(v);
        } catch (DateTimeException | ArithmeticException e) { // DateTimeException: now - d before Instant.MIN (issue 49)
            throw new InvalidInputException("filters.invalid",
                    field + " must be an ISO-8601 duration (PT10M) or instant (2026-01-01T00:00:00Z).");
        }
        if (at.isBefore(Instant.parse("0001-01-01T00:00:00Z")) || at.isAfter(Instant.parse("9999-12-31T00:00:00Z"))) {
            throw new InvalidInputException("filters.invalid", field + " is out of range.");
        }
        return at;
    }

    private UUID teamFilter(String team) {
        if (blank(team)) {
            return null;
        }
        try {
            return UUID.fromString(team.trim());
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException("filters.invalid", "team must be a team id (UUID).");
        }
    }

    /**
     * R44: one page of executions across teams, newest claim first.
     *
     * @param outcome comma-separated outcomes ({@link ExecutionOutcome} names, or {@code RUNNING} for executions
     *                not ended yet), or blank for any
     * @param worker  one queue worker's id, exactly as executions show it (at most 200 characters), or blank
     * @param from    executions that ran at or after it (ended at or after it, or not ended): an instant or a
     *                duration back from now ({@code PT1H}); blank: unbounded
     * @param to      executions claimed before it (same forms); blank: unbounded
     * @throws InvalidInputException ({@code filters.invalid}) a bad filter, {@code from} not before {@code to};
     *                               a bad limit or cursor
     */
    public Page<AdminExecution> executions(String outcome, String worker, String team, String kind, String from,
            String to, Integer limit, String cursor) {
        int n = Page.limit(limit);
        JdbcTaskAdmin.ExecutionFilter f = executionFilter(outcome, worker, team, kind, from, to);
        KeysetCursor after = KeysetCursor.decode(cursor);
        List<AdminExecution> rows = admin.executions(f, after == null ? null : after.createdAt(),
                after == null ? null : after.id(), n + 1);
        return KeysetCursor.page(rows, n, AdminExecution::claimedAt, AdminExecution::executionId);
    }

    /**
     * R44: how the executions matching the filters ({@link #executions}' forms) ended, by outcome; the
     * incident view's header.
     *
     * @throws InvalidInputException ({@code filters.invalid}) a bad filter
     */
    public ExecutionSummary executionSummary(String outcome, String worker, String team, String kind, String from,
            String to) {
        JdbcTaskAdmin.ExecutionFilter f = executionFilter(outcome, worker, team, kind, from, to);
        List<OutcomeCount> counts = new ArrayList<>(admin.executionCounts(f));
        counts.sort(java.util.Comparator.comparingInt(c -> c.outcome().equals(RUNNING) ? -1
                : ExecutionOutcome.valueOf(c.outcome()).ordinal()));
        return new ExecutionSummary(f.from(), f.to(), counts);
    }

    private JdbcTaskAdmin.ExecutionFilter executionFilter(String outcome, String worker, String team, String kind,
            String from, String to) {
        java.util.EnumSet<ExecutionOutcome> outcomes = java.util.EnumSet.noneOf(ExecutionOutcome.class);
        boolean running = false;
        if (!blank(outcome)) {
            for (String part : outcome.split(",", -1)) {
                String v = com.teamdesk.tasks.common.ClientValues.asciiName(part);
                if (v.equals(RUNNING)) {
                    running = true;
                } else {
                    outcomes.add(parseOutcome(v));
                }
            }
        }
        String w = blank(worker) ? null : worker.trim();
        if (w != null && w.length() > MAX_WORKER_FILTER) {
            throw new InvalidInputException("filters.invalid", "worker is at most " + MAX_WORKER_FILTER + " characters.");
        }
        TaskKind k = blank(kind) ? null : kinds.parse(kind, "kind", "filters.invalid");
        Instant start = pointInTime(from, "from");
        Instant end = pointInTime(to, "to");
        if (start != null && end != null && !start.isBefore(end)) {
            throw new InvalidInputException("filters.invalid", "from must be before to.");
        }
        return new JdbcTaskAdmin.ExecutionFilter(outcomes, running, w, teamFilter(team), k, start, end);
    }

    private static ExecutionOutcome parseOutcome(String v) {
        ExecutionOutcome o = com.teamdesk.tasks.common.ClientValues.enumOf(ExecutionOutcome.class, v);
        if (o == null) {
            throw new InvalidInputException("filters.invalid", "outcome is a comma-separated list of "
                    + java.util.Arrays.toString(ExecutionOutcome.values()) + " and RUNNING.");
        }
        return o;
    }

    private void check(String name) {
        if (name == null || !timers.names().contains(name)) {
            throw new NotFoundException("timer.not_found", "No timer of that name; timers: " + timers.names() + ".");
        }
    }

    private void audit(UUID team, String kind, UUID operator, UUID taskId, String key, String value, boolean changed) {
        events.append(team, kind, operator, taskId, Jsons.PROVIDER.createObjectBuilder().add(key, value)
                .add("changed", changed).add("instance", InstanceId.get()).build(), clock.instant());
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    private static JsonValue str(Instant t) {
        return t == null ? JsonValue.NULL : Jsons.PROVIDER.createValue(t.toString());
    }

    private static <E extends Enum<E>> E parse(Class<E> type, String value, String field) {
        E v = com.teamdesk.tasks.common.ClientValues.enumOf(type, value);
        if (v == null) {
            throw new InvalidInputException("filters.invalid", field + " is not one of "
                    + java.util.Arrays.toString(type.getEnumConstants()) + ".");
        }
        return v;
    }
}
