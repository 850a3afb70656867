package com.teamdesk.tasks.task.ledger;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.task.spi.Binder;
import com.teamdesk.tasks.task.spi.ExecutionLedger;
import com.teamdesk.tasks.task.spi.OwnWrites;
import com.teamdesk.tasks.task.spi.ResultCompletion;
import com.teamdesk.tasks.task.spi.KindLedger;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.Lease;
import com.teamdesk.tasks.task.spi.LeaseLost;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.task.spi.TaskStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional.TxType;
import jakarta.transaction.Transactional;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The task ledger on PostgreSQL through JDBC, and the only writer of {@code background_task}. Every state change is a
 * named transition, ONE conditional statement whose row count is checked: 0 means the lease or the state moved on (R8),
 * more than 1 is a bug and throws {@link IllegalStateException}. Methods join the caller's JTA transaction when there
 * is one (begun by {@link com.teamdesk.tasks.platform.Transactions}) and otherwise run their one statement on its own
 * (auto-commit); {@link #complete} and {@link #cancelWaiting} must run inside the caller's transaction
 * ({@code MANDATORY}). It knows no kind: a kind asks for the transitions it needs through the spi
 * ({@link ExecutionLedger} through its {@code Execution}, {@link KindLedger}), naming itself and its rows; its own
 * tables' writes that must happen with a transition ride in the transition's statement ({@link OwnWrites}), and its
 * own statements under the lease are fenced here ({@link #writeUnderLease}); the lease is bound in one place,
 * {@link Fencing}. No method begins a transaction: a CDI-begun one would enlist nothing on the worker's threads
 * (docs/platform.md). Times are passed in from the caller's {@link java.time.Clock}. SQL errors surface as
 * {@link LedgerException}.
 *
 * <p>Over 300 lines: one method per transition, each its one conditional statement and its rule; the claim and the
 * completion with a result exist alone and combined (issue 16), and both forms must stay side by side to stay one
 * transition.
 */
@ApplicationScoped
public class JdbcTaskLedger implements ExecutionLedger, KindLedger {

    private static final String COLUMNS = TaskRows.COLUMNS;

    /** The lease check of every write of an execution (R8): {@link Fencing#LEASE_CONDITION}. */
    private static final String LEASE = Fencing.LEASE_CONDITION;

    /** The ledger's table: its SQL errors throw {@link LedgerException} naming what failed. */
    private static final Jdbc.Table TABLE = LedgerException.TABLE;

    /** The executions' history, written by the ledger's triggers (R43); read errors are the ledger's too. */
    private static final Jdbc.Table HISTORY = new Jdbc.Table("task_execution", TABLE.failure());

    @Inject
    Jdbc jdbc;

    @Inject
    RunTimeouts timeouts;

    /**
     * A new task as created by {@code TaskService}: WAITING, run 0, one INSERT that returns the row.
     * When {@code dispatched}, the row is marked handed to the queue at {@code now} in the same
     * statement (R18); the caller adds the queue job after its transaction committed, so a worker never
     * finds a job whose row it cannot yet see or must wait to lock (issue 16).
     *
     * @param paramsJson the kind's parameters ({@code TaskKindHandler#store}), into column {@code filters}
     * @return the row as inserted
     */
    public BackgroundTask insert(UUID id, TaskKind kind, UUID teamId, UUID ownerId, TaskScope scope, String paramsJson,
            Instant runAt, Instant now, boolean dispatched) {
        return insert(id, kind, teamId, ownerId, scope, paramsJson, runAt, now, dispatched, null);
    }

    /**
     * A new task as {@link #insert(UUID, TaskKind, UUID, UUID, TaskScope, String, Instant, Instant, boolean)}, with the
     * W3C {@code traceparent} of the creating request stored in the same INSERT (R45).
     *
     * @param traceParent the creating request's trace context, or null (tracing off: {@code TaskTracing#currentTraceParent})
     * @return the row as inserted
     */
    public BackgroundTask insert(UUID id, TaskKind kind, UUID teamId, UUID ownerId, TaskScope scope, String paramsJson,
            Instant runAt, Instant now, boolean dispatched, String traceParent) {
        return insert(id, kind, teamId, ownerId, scope, paramsJson, runAt, now, dispatched, traceParent, Placement.ALONE);
    }

    /**
     * A new task as {@link #insert(UUID, TaskKind, UUID, UUID, TaskScope, String, Instant, Instant, boolean, String)},
     * placed among others (issue 52): the prerequisites it waits for (R53) are counted in {@code waits_for}; a task
     * that waits must not be marked {@code dispatched}. Its dependency rows are {@link #insertDependencies}, in the
     * same transaction.
     *
     * @throws IllegalArgumentException dispatched while it waits
     */
    public BackgroundTask insert(UUID id, TaskKind kind, UUID teamId, UUID ownerId, TaskScope scope, String paramsJson,
            Instant runAt, Instant now, boolean dispatched, String traceParent, Placement placement) {
        if (dispatched && placement.waitsFor() > 0) {
            throw new IllegalArgumentException("a task that waits for others is dispatched when they settle");
        }
        String sql = "INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,"
                + " progress, dispatched_at, run_at, created_at, updated_at, trace_parent, batch_id, waits_for, run_anyway)"
                + " VALUES (?, ?, ?, ?, ?, ?::jsonb, 'WAITING', 0, 0, 0, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING " + COLUMNS;
        return atMostOne(jdbc.query(TABLE, "query", sql, TaskRows.ROW, id, kind.name(), teamId, ownerId, scope.name(),
                paramsJson, dispatched ? now : null, runAt, now, now, traceParent, placement.batchId(),
                placement.waitsFor(), placement.runAnyway()))
                .orElseThrow(() -> new IllegalStateException("INSERT … RETURNING returned no row"));
    }

    /**
     * Issue 52 (R51): the children of a batch, WAITING, run 0, in ONE statement of the batch's creating transaction;
     * those due now that wait for nothing are marked dispatched by it, and the caller adds their jobs after the commit
     * (R18, as {@link #insert} with {@code dispatched}).
     *
     * @return how many rows were inserted (all of them)
     */
    @Transactional(TxType.MANDATORY)
    public int insertChildren(UUID teamId, UUID ownerId, UUID batchId, List<NewChild> children, Instant now,
            String traceParent) {
        int n = children.size();
        Object[][] columns = new Object[9][n];
        for (int k = 0; k < n; k++) {
            NewChild c = children.get(k);
            columns[7][k] = c.hasDependents();
            if (c.dispatched() && c.waitsFor() > 0) {
                throw new IllegalArgumentException("a task that waits for others is dispatched when they settle");
            }
            columns[8][k] = c.dispatched();
            columns[0][k] = c.id();
            columns[1][k] = c.kind().name();
            columns[2][k] = c.scope().name();
            columns[3][k] = c.params();
            columns[4][k] = c.runAt().toString();
            columns[5][k] = c.waitsFor();
            columns[6][k] = c.runAnyway();
        }
        String sql = "INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,"
                + " progress, run_at, created_at, updated_at, trace_parent, batch_id, waits_for, run_anyway, has_dependents,"
                + " dispatched_at) SELECT r.id, r.kind, ?, ?, r.scope, r.params::jsonb, 'WAITING', 0, 0, 0,"
                + " r.run_at::timestamptz, ?, ?, ?, ?, r.waits_for, r.run_anyway, r.has_dependents,"
                + " CASE WHEN r.dispatched THEN ?::timestamptz END FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[],"
                + " ?::text[], ?::int[], ?::boolean[], ?::boolean[], ?::boolean[])"
                + " AS r(id, kind, scope, params, run_at, waits_for, run_anyway, has_dependents, dispatched)";
        return jdbc.updateExpecting(n, TABLE, "batch insert", sql, teamId, ownerId, now, now, traceParent, batchId, now,
                Jdbc.array("uuid", columns[0]), Jdbc.array("text", columns[1]), Jdbc.array("text", columns[2]),
                Jdbc.array("text", columns[3]), Jdbc.array("text", columns[4]), Jdbc.array("integer", columns[5]),
                Jdbc.array("boolean", columns[6]), Jdbc.array("boolean", columns[7]), Jdbc.array("boolean", columns[8]));
    }

    /**
     * Issue 52 (R18): takes back the dispatch marks of a batch's children whose queue jobs could not be added after the
     * batch committed, so that the dispatch sweep adds them; only runs still WAITING with exactly that mark.
     *
     * @return how many marks were cleared
     */
    public int undispatchBatch(UUID batchId, Instant dispatchedAt) {
        return jdbc.update(TABLE, "undispatch", "UPDATE background_task SET dispatched_at = NULL WHERE batch_id = ?"
                + " AND status = 'WAITING' AND dispatched_at = ?", batchId, dispatchedAt);
    }

    /**
     * One child of {@link #insertChildren}: as the arguments of {@link #insert}; {@code params} is the kind's JSON;
     * {@code hasDependents} when another child waits for it; {@code dispatched}: marked handed to the queue by the
     * INSERT (due now and waiting for nothing), the caller adds its job after the commit (R18, as a single create).
     */
    public record NewChild(UUID id, TaskKind kind, TaskScope scope, String params, Instant runAt, int waitsFor,
            boolean runAnyway, boolean hasDependents, boolean dispatched) {
    }

    /**
     * Issue 52 (R53): how deep the chains of prerequisites behind {@code ids} reach, counting {@code ids} as 1, read
     * no further than {@code cap} + 1 (enough to refuse a chain that is too deep).
     */
    public int dependencyDepth(Collection<UUID> ids, int cap) {
        if (ids.isEmpty()) {
            return 0;
        }
        return jdbc.queryInt(DEPENDENCY, "depth", "WITH RECURSIVE up(id, depth) AS (SELECT unnest(?::uuid[]), 1"
                + " UNION SELECT x.prerequisite_id, up.depth + 1 FROM task_dependency x JOIN up ON x.task_id = up.id"
                + " WHERE up.depth <= ?) SELECT coalesce(max(depth), 0) FROM up", Jdbc.array("uuid", ids.toArray()), cap);
    }

    /**
     * Issue 52 (R52): cancels the waiting children of a batch (the caller holds the batch's row lock, and has marked it
     * cancelled), as a member's cancel of each (R23): who, when, {@code message}. The trigger counts each.
     *
     * @return the cancelled runs, whose queue jobs the caller removes after the commit
     */
    @Transactional(TxType.MANDATORY)
    public List<TaskJobId> cancelBatchWaiting(UUID batchId, UUID cancelledBy, String message, Instant now) {
        return jdbc.query(TABLE, "query", "UPDATE background_task SET status = 'CANCELLED', cancelled_at = ?,"
                + " cancelled_by = ?, last_error = ?, updated_at = ? WHERE batch_id = ? AND status = 'WAITING'"
                + " RETURNING id, run", TaskJobId.ROW, now, cancelledBy, message, now, batchId);
    }

    /**
     * Issue 52: locks the batch of a task before a change of that task that may end it (a member's cancel): the
     * batch's row first, then the task's (R52's lock order).
     */
    @Transactional(TxType.MANDATORY)
    public void lockBatchOf(UUID taskId) {
        jdbc.query(TABLE, "query", "SELECT b.id FROM task_batch b JOIN background_task t ON t.batch_id = b.id"
                + " WHERE t.id = ? FOR UPDATE OF b", rs -> rs.getString(1), taskId);
    }

    /**
     * Issue 52 (R53): marks tasks as prerequisites of a task being created, in the creating transaction, and reads
     * them as they are now: the UPDATE locks each row, so a prerequisite that ends concurrently either ended before
     * (its status is final here) or ends after this commit and then sees its dependent (its trigger settles it).
     *
     * @return one row per id that exists (any team: the caller refuses another team's)
     */
    @Transactional(TxType.MANDATORY)
    public List<Prerequisite> markPrerequisites(Collection<UUID> ids) {
        return jdbc.query(TABLE, "query", "UPDATE background_task SET has_dependents = true WHERE id = ANY (?::uuid[])"
                + " RETURNING id, team_id, status, owner_id", Prerequisite.ROW, Jdbc.array("uuid", ids.toArray()));
    }

    /**
     * Issue 52 (R53): the prerequisites of a task, locked ({@code FOR SHARE}: none of them ends until the caller's
     * transaction does), for a retry that must count what its task waits for again.
     */
    @Transactional(TxType.MANDATORY)
    public List<Prerequisite> lockPrerequisitesOf(UUID taskId) {
        return jdbc.query(TABLE, "query", "SELECT p.id, p.team_id, p.status, p.owner_id FROM task_dependency x"
                + " JOIN background_task p ON p.id = x.prerequisite_id WHERE x.task_id = ? ORDER BY p.id FOR SHARE OF p",
                Prerequisite.ROW, taskId);
    }

    /** A prerequisite as {@link #markPrerequisites} and {@link #lockPrerequisitesOf} read it. */
    public record Prerequisite(UUID id, UUID teamId, TaskStatus status, UUID ownerId) {
        static final Jdbc.Row<Prerequisite> ROW = rs -> new Prerequisite(Jdbc.uuid(rs, 1), Jdbc.uuid(rs, 2),
                TaskStatus.valueOf(rs.getString(3)), Jdbc.uuid(rs, 4));

        /** @return true when it has ended (COMPLETED, FAILED or CANCELLED) */
        public boolean ended() {
            return status.isFinal();
        }
    }

    /**
     * Issue 52 (R53): records that each task of {@code edges} waits for its prerequisite, in ONE statement of the
     * creating transaction; an edge whose prerequisite has ended already is stored settled.
     *
     * @param edges pairs {task id, prerequisite id}
     */
    @Transactional(TxType.MANDATORY)
    public void insertDependencies(List<UUID[]> edges, Set<UUID> endedPrerequisites) {
        if (edges.isEmpty()) {
            return;
        }
        Object[] tasks = new Object[edges.size()];
        Object[] prereqs = new Object[edges.size()];
        Object[] settled = new Object[edges.size()];
        for (int k = 0; k < edges.size(); k++) {
            tasks[k] = edges.get(k)[0];
            prereqs[k] = edges.get(k)[1];
            settled[k] = endedPrerequisites.contains(edges.get(k)[1]);
        }
        jdbc.updateExpecting(edges.size(), DEPENDENCY, "dependency insert", "INSERT INTO task_dependency (task_id,"
                + " prerequisite_id, settled) SELECT * FROM unnest(?::uuid[], ?::uuid[], ?::boolean[])",
                Jdbc.array("uuid", tasks), Jdbc.array("uuid", prereqs), Jdbc.array("boolean", settled));
    }

    /** The dependencies between tasks (issue 52), written with the tasks they link. */
    private static final Jdbc.Table DEPENDENCY = new Jdbc.Table("task_dependency", TABLE.failure());

    /** A new task, not marked dispatched: {@link #insert(UUID, TaskKind, UUID, UUID, TaskScope, String, Instant, Instant, boolean)}. */
    public BackgroundTask insert(UUID id, TaskKind kind, UUID teamId, UUID ownerId, TaskScope scope, String paramsJson,
            Instant runAt, Instant now) {
        return insert(id, kind, teamId, ownerId, scope, paramsJson, runAt, now, false);
    }

    /**
     * Issue 31 (R41): inserts an occurrence of a schedule, WAITING and not dispatched (the dispatch sweep hands it
     * to the queue), unless the schedule already has a task for that slot: {@code (schedule_id, slot_at)} is
     * unique, so two instances, a restart or a sweep run twice make one task per slot. One statement, in the
     * caller's transaction (the one that advances the schedule).
     *
     * @param slotAt the slot, or null for a "run now" (never a duplicate)
     * @return the row as inserted, or empty when the slot had its task already
     */
    public Optional<BackgroundTask> insertOccurrence(UUID id, TaskKind kind, UUID teamId, UUID ownerId, TaskScope scope,
            String paramsJson, UUID scheduleId, Instant slotAt, Instant now) {
        String sql = "INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,"
                + " progress, run_at, created_at, updated_at, schedule_id, slot_at) VALUES (?, ?, ?, ?, ?, ?::jsonb,"
                + " 'WAITING', 0, 0, 0, ?, ?, ?, ?, ?) ON CONFLICT (schedule_id, slot_at) WHERE slot_at IS NOT NULL"
                + " DO NOTHING RETURNING " + COLUMNS;
        return atMostOne(jdbc.query(TABLE, "query", sql, TaskRows.ROW, id, kind.name(), teamId, ownerId, scope.name(),
                paramsJson, now, now, now, scheduleId, slotAt));
    }

    /**
     * R18: takes back the dispatch mark of a run whose queue job could not be added after its creating
     * transaction committed, so that the dispatch sweep adds it; only while the run still waits with
     * exactly that mark. One statement.
     *
     * @return true when the mark was cleared
     */
    public boolean undispatch(TaskJobId job, Instant dispatchedAt) {
        return jdbc.update(TABLE, "undispatch", "UPDATE background_task SET dispatched_at = NULL WHERE id = ? AND run = ?"
                + " AND status = 'WAITING' AND dispatched_at = ?", job.taskId(), job.run(), dispatchedAt) == 1;
    }

    /** @return the row, or empty when no task has this id */
    public Optional<BackgroundTask> find(UUID id) {
        return atMostOne(jdbc.query(TABLE, "query", "SELECT " + COLUMNS + " FROM background_task WHERE id = ?", TaskRows.ROW,
                id));
    }

    /** {@link Fencing#ASYNC_COMMIT}: claims commit asynchronously. */
    private static final String ASYNC_COMMIT = Fencing.ASYNC_COMMIT;

    /**
     * R7 claim: one conditional UPDATE on (id, run, status WAITING or RUNNING) that sets RUNNING, a
     * fresh fencing token, {@code attempts = attemptsMade + 1} and progress 0. It may replace the
     * token of a RUNNING row: that is how a new execution takes over from a stalled one. Commits on its
     * own, asynchronously (see {@code ASYNC_COMMIT}); called where no JTA transaction is active.
     *
     * @param attemptsMade the queue's attemptsMade before this execution (R3)
     * @return the claimed row and its lease, whose deadline is {@code now} + the kind's run timeout
     *         (R26); empty when 0 rows matched (an old run's message, or a
     *         finished task), in which case the execution must return quietly
     */
    public Optional<Claim> claim(UUID taskId, int run, int attemptsMade, Instant now) {
        return claim(taskId, run, attemptsMade, null, now);
    }

    /**
     * R7 claim as {@link #claim(UUID, int, int, Instant)}, recording which queue worker claimed the run
     * ({@code claimed_by}, shown to operators next to the lease age).
     *
     * @param claimedBy the claiming worker's id ({@link com.teamdesk.tasks.queue.Job#workerId()}), or null
     */
    public Optional<Claim> claim(UUID taskId, int run, int attemptsMade, String claimedBy, Instant now) {
        UUID executionId = UUID.randomUUID();
        String sql = "UPDATE background_task SET status = 'RUNNING', execution_id = ?,"
                + " attempts = ?, progress = 0, claimed_by = ?, updated_at = ?"
                + " WHERE id = ? AND run = ? AND status IN ('WAITING', 'RUNNING')" + ASYNC_COMMIT + " RETURNING " + COLUMNS;
        Optional<BackgroundTask> row = atMostOne(jdbc.query(TABLE, "query", sql, TaskRows.ROW,
                executionId, attemptsMade + 1, claimedBy, now, taskId, run));
        return row.map(t -> claimed(t, executionId, attemptsMade, now));
    }

    /** One claim of {@link #claimAll}: as the arguments of {@link #claim(UUID, int, int, String, Instant)}. */
    public record ClaimRequest(UUID taskId, int run, int attemptsMade, String claimedBy, Instant now) {
    }

    /**
     * R7 claims of several runs in ONE statement and one commit (issue 16: a worker's slots that fetch
     * jobs together claim them together). Each row is claimed by its own condition, exactly as
     * {@link #claim(UUID, int, int, String, Instant)} would (id, run, WAITING or RUNNING; a fresh fencing
     * token per row, {@code attempts = attemptsMade + 1}, progress 0), and a row that no longer matches
     * leaves only its own claim empty. Rows are locked in id order, so two such statements never
     * deadlock. A task asked for more than once is claimed once in the statement and then again, in
     * request order, by single claims (the later one takes over, as it would one after the other). Must
     * not run inside a JTA transaction: the claims commit when the statement ends.
     *
     * @return one result per request, in request order: the claim, or empty when its row did not match
     */
    public List<Optional<Claim>> claimAll(List<ClaimRequest> requests) {
        if (requests.size() == 1) {
            ClaimRequest r = requests.get(0);
            return List.of(claim(r.taskId(), r.run(), r.attemptsMade(), r.claimedBy(), r.now()));
        }
        List<Optional<Claim>> out = new ArrayList<>(requests.size());
        Map<UUID, Integer> first = new HashMap<>();
        List<Integer> batch = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            out.add(Optional.empty());
            if (first.putIfAbsent(requests.get(i).taskId(), i) == null) {
                batch.add(i);
            }
        }
        UUID[] executionIds = new UUID[requests.size()];
        String sql = "WITH j AS (SELECT * FROM unnest(?::uuid[], ?::int[], ?::uuid[], ?::int[], ?::text[],"
                + " ?::timestamptz[]) AS j(j_id, j_run, j_execution_id, j_attempts, j_claimed_by, j_now)),"
                + " locked AS MATERIALIZED (SELECT t.id FROM background_task t JOIN j ON t.id = j.j_id AND t.run = j.j_run"
                + " WHERE t.status IN ('WAITING', 'RUNNING') ORDER BY t.id FOR UPDATE OF t)"
                + " UPDATE background_task SET status = 'RUNNING', execution_id = j.j_execution_id, attempts = j.j_attempts,"
                + " progress = 0, claimed_by = j.j_claimed_by, updated_at = j.j_now FROM j"
                + " WHERE id = j.j_id AND run = j.j_run AND status IN ('WAITING', 'RUNNING') AND id IN (SELECT id FROM locked)"
                + ASYNC_COMMIT + " RETURNING " + COLUMNS;
        int n = batch.size();
        Object[] ids = new Object[n];
        Object[] runs = new Object[n];
        Object[] tokens = new Object[n];
        Object[] attempts = new Object[n];
        Object[] workers = new Object[n];
        Object[] times = new Object[n];
        for (int k = 0; k < n; k++) {
            int i = batch.get(k);
            ClaimRequest r = requests.get(i);
            executionIds[i] = UUID.randomUUID();
            ids[k] = r.taskId();
            runs[k] = r.run();
            tokens[k] = executionIds[i];
            attempts[k] = r.attemptsMade() + 1;
            workers[k] = r.claimedBy();
            times[k] = r.now().toString();
        }
        Map<UUID, BackgroundTask> rows = new HashMap<>();
        for (BackgroundTask t : jdbc.query(TABLE, "claim", sql, TaskRows.ROW, Jdbc.array("uuid", ids),
                Jdbc.array("integer", runs), Jdbc.array("uuid", tokens), Jdbc.array("integer", attempts),
                Jdbc.array("text", workers), Jdbc.array("text", times))) {
            rows.put(t.id(), t);
        }
        for (int i : batch) {
            ClaimRequest r = requests.get(i);
            BackgroundTask t = rows.get(r.taskId());
            if (t != null) {
                out.set(i, Optional.of(claimed(t, executionIds[i], r.attemptsMade(), r.now())));
            }
        }
        for (int i = 0; i < requests.size(); i++) {
            if (first.get(requests.get(i).taskId()) != i) {
                ClaimRequest r = requests.get(i);
                out.set(i, claim(r.taskId(), r.run(), r.attemptsMade(), r.claimedBy(), r.now()));
            }
        }
        return out;
    }

    private Claim claimed(BackgroundTask t, UUID executionId, int attemptsMade, Instant now) {
        return new Claim(t, new Lease(t.id(), t.run(), executionId, attemptsMade + 1,
                timeouts == null ? null : now.plus(timeouts.of(t.kind()))));
    }

    /**
     * R8/R10: writes progress under the lease and moves {@code updatedAt}.
     *
     * @param progress 0-100
     * @throws LeaseLost   when the lease no longer matches
     * @throws RunTimedOut when {@code now} is past the lease's deadline (R26); nothing is written
     */
    public void writeProgress(Lease lease, int progress, Instant now) {
        Fencing.checkDeadline(lease, "progress write", now);
        leaseChecked(lease, "progress write", "UPDATE background_task SET progress = ?, updated_at = ?" + LEASE,
                progress, now);
    }

    /**
     * Completes the run under the lease (the reminder's and the digest's completion, R14): COMPLETED, progress 100,
     * lease and {@code lastError} cleared, ONE statement in the caller's JTA transaction, exactly one row; a lost lease
     * throws out of that transaction so that it rolls back the kind's side effects.
     *
     * @throws LeaseLost   when the count is not 1, so that the caller's transaction rolls back
     * @throws RunTimedOut when {@code now} is past the lease's deadline (R26): rolls back too
     */
    @Override
    @Transactional(TxType.MANDATORY)
    public boolean complete(Lease lease, String what, Instant now) {
        return complete(lease, what, null, now);
    }

    /** {@link #complete(Lease, String, Instant)} that sets {@code result_summary} when {@code summary} is not null. */
    @Override
    @Transactional(TxType.MANDATORY)
    public boolean complete(Lease lease, String what, String summary, Instant now) {
        if (summary != null && summary.length() > 500) {
            throw new IllegalArgumentException("a completion's summary has at most 500 characters");
        }
        Fencing.checkDeadline(lease, what, now);
        // issue 52: the statement also says whether its end may release others (no second round trip): some task waits
        // for this run, or it may be the last child of its batch (the batch's count as committed before it, + 1; a
        // sibling ending at the same moment is not seen, and then the dispatch sweep hands the completion over)
        List<Boolean> row = jdbc.query(TABLE, what, "UPDATE background_task SET status = 'COMPLETED', progress = 100,"
                + " execution_id = NULL, last_error = NULL, updated_at = ?"
                + (summary == null ? "" : ", result_summary = ?") + LEASE + " RETURNING has_dependents OR"
                + " coalesce((SELECT b.completed + b.failed + b.cancelled + 1 >= b.size FROM task_batch b"
                + " WHERE b.id = batch_id), false)", rs -> rs.getBoolean(1), summary == null
                        ? Fencing.withLease(lease, now) : Fencing.withLease(lease, now, summary));
        Fencing.checkLease(lease, what, row.size());
        return row.get(0);
    }

    /**
     * Issue 52 (R52, R53): whether the end of a run may have released others, read after it ended other than by
     * {@link #complete}: some task waits for it, or its batch has finished.
     */
    public boolean mayHaveReleased(UUID taskId) {
        return jdbc.query(TABLE, "query", "SELECT t.has_dependents OR coalesce((SELECT b.finished_at IS NOT NULL FROM"
                + " task_batch b WHERE b.id = t.batch_id), false) FROM background_task t WHERE t.id = ?",
                rs -> rs.getBoolean(1), taskId).stream().findFirst().orElse(false);
    }

    /** The completion with a result's assignments: the result is this execution's, and the run COMPLETED. */
    private static final String RESULT_SETS = "result_execution_id = execution_id, result_size = ?, result_sha256 = ?,"
            + " result_summary = ?, expires_at = ?, status = 'COMPLETED', progress = 100, execution_id = NULL,"
            + " last_error = NULL, updated_at = ?";

    /**
     * R13's completion of an export (its result columns) under the lease, ONE statement with {@code own}'s writes
     * (the export's last chunk and the deletion of stale chunks), which see the matched row as {@code done}: they
     * happen only when the lease held, as PostgreSQL re-checks the UPDATE's row against a concurrent takeover.
     */
    @Override
    public boolean completeWithResult(ResultCompletion e, OwnWrites own) {
        Lease lease = e.lease();
        Fencing.checkDeadline(lease, "result write", e.now());
        String sql = "WITH done AS (UPDATE background_task SET " + RESULT_SETS + LEASE
                + " RETURNING id, result_execution_id)" + own.clauses() + " SELECT count(*) FROM done";
        return jdbc.withConnection(TABLE, "result write", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                Jdbc.bind(ps, 1, e.size(), e.sha256(), e.summary(), e.expiresAt(), e.now());
                own.args().bind(c, ps, Fencing.bind(ps, 6, lease));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    int n = rs.getInt(1);
                    if (n > 1) {
                        throw new IllegalStateException("result write matched " + n + " rows for task " + lease.taskId());
                    }
                    return n == 1;
                }
            }
        });
    }

    /**
     * {@link #completeWithResult} of concurrent executions combined (issue 16): each row under its own lease
     * ({@code j}'s id, run and execution id), locked in id order; {@code own} sees the completed rows as {@code done}.
     */
    @Override
    public List<Boolean> completeWithResults(List<ResultCompletion> batch, OwnWrites own) {
        String sql = "WITH j AS (SELECT * FROM unnest(?::uuid[], ?::int[], ?::uuid[], ?::int[], ?::text[], ?::text[],"
                + " ?::timestamptz[], ?::timestamptz[]) AS j(j_id, j_run, j_execution_id, j_size, j_sha256, j_summary,"
                + " j_expires_at, j_now)),"
                + " locked AS MATERIALIZED (SELECT t.id FROM background_task t JOIN j ON t.id = j.j_id AND t.run = j.j_run"
                + " AND t.execution_id = j.j_execution_id ORDER BY t.id FOR UPDATE OF t),"
                + " done AS (UPDATE background_task SET result_execution_id = execution_id, result_size = j.j_size,"
                + " result_sha256 = j.j_sha256, result_summary = j.j_summary, expires_at = j.j_expires_at,"
                + " status = 'COMPLETED', progress = 100, execution_id = NULL, last_error = NULL, updated_at = j.j_now"
                + " FROM j WHERE id = j.j_id AND run = j.j_run AND execution_id = j.j_execution_id"
                + " AND id IN (SELECT id FROM locked) RETURNING id, result_execution_id)" + own.clauses()
                + " SELECT id, result_execution_id FROM done";
        int n = batch.size();
        Object[][] columns = new Object[8][n];
        for (int k = 0; k < n; k++) {
            ResultCompletion e = batch.get(k);
            columns[0][k] = e.lease().taskId();
            columns[1][k] = e.lease().run();
            columns[2][k] = e.lease().executionId();
            columns[3][k] = e.size();
            columns[4][k] = e.sha256();
            columns[5][k] = e.summary();
            columns[6][k] = e.expiresAt().toString();
            columns[7][k] = e.now().toString();
        }
        String[] types = {"uuid", "integer", "uuid", "integer", "text", "text", "text", "text"};
        Object[] arrays = new Object[types.length];
        for (int col = 0; col < types.length; col++) {
            arrays[col] = Jdbc.array(types[col], columns[col]);
        }
        Set<List<UUID>> completed = new HashSet<>();
        jdbc.withConnection(TABLE, "result write", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                Jdbc.bind(ps, 1, arrays);
                own.args().bind(c, ps, types.length + 1);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        completed.add(List.of(Jdbc.uuid(rs, 1), Jdbc.uuid(rs, 2)));
                    }
                }
            }
            return null;
        });
        List<Boolean> out = new ArrayList<>(batch.size());
        for (ResultCompletion e : batch) {
            out.add(completed.contains(List.of(e.lease().taskId(), e.lease().executionId())));
        }
        return out;
    }

    /**
     * R13: clears up to {@code limit} stored results whose expiry is over, in one statement with {@code own}'s writes
     * (which see the cleared rows as {@code done(id)}): the task row, summary and expiry stay (410 Gone). Rows another
     * sweep holds are skipped.
     *
     * @return how many results were cleared
     */
    @Override
    public int clearExpiredResults(Instant now, int limit, OwnWrites own) {
        String sql = "WITH done AS (UPDATE background_task SET result_execution_id = NULL, result_size = NULL,"
                + " result_sha256 = NULL, updated_at = ? WHERE id IN (SELECT id FROM background_task"
                + " WHERE result_sha256 IS NOT NULL AND expires_at <= ? LIMIT ? FOR UPDATE SKIP LOCKED)"
                + " RETURNING id)" + own.clauses() + " SELECT count(*) FROM done";
        return jdbc.withConnection(TABLE, "purge", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                Jdbc.bind(ps, 1, now, now, limit);
                own.args().bind(c, ps, 4);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1);
                }
            }
        });
    }

    @Override
    public void writeUnderLease(Lease lease, String what, Instant now, String statement, Binder args,
            boolean asyncCommit) {
        Fencing.checkDeadline(lease, what, now);
        String sql = statement + LEASE + (asyncCommit ? ASYNC_COMMIT : "");
        int count = jdbc.withConnection(TABLE, what, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                Fencing.bind(ps, args.bind(c, ps, 1), lease);
                return ps.executeUpdate();
            }
        });
        Fencing.checkLease(lease, what, count);
    }

    /**
     * Issue 53 (R59): tasks a kind starts itself, each unique by its key ({@code background_task_once_key_idx}): ONE
     * INSERT of all of them, WAITING and not dispatched, that skips the keys that exist (the dispatch sweep hands each
     * to the queue when due, R18).
     */
    @Override
    @Transactional(TxType.MANDATORY)
    public int scheduleOnce(List<OnceTask> tasks, String replaced, Instant now) {
        int created = 0;
        for (int from = 0; from < tasks.size(); from += ONCE_CHUNK) {
            created += scheduleOnceChunk(tasks.subList(from, Math.min(tasks.size(), from + ONCE_CHUNK)), replaced, now);
        }
        return created;
    }

    /**
     * Tasks per statement of {@link #scheduleOnce}: a calendar write of a team with 100 000 tickets starts 400 000
     * escalations, whose arrays as one statement's text ran a 512 MB server out of memory (bench P10).
     */
    private static final int ONCE_CHUNK = 2_000;

    private int scheduleOnceChunk(List<OnceTask> tasks, String replaced, Instant now) {
        int n = tasks.size();
        Object[][] columns = new Object[9][n];
        for (int k = 0; k < n; k++) {
            OnceTask t = tasks.get(k);
            columns[0][k] = UUID.randomUUID();
            columns[1][k] = t.kind().name();
            columns[2][k] = t.teamId();
            columns[3][k] = t.ownerId();
            columns[4][k] = t.scope().name();
            columns[5][k] = t.params();
            columns[6][k] = t.onceKey();
            columns[7][k] = t.runAt().toString();
            columns[8][k] = t.group();
        }
        // the groups' older waiting tasks are cancelled by the same statement (the new keys spared); the change
        // trigger records each as any cancel (R43)
        return jdbc.update(TABLE, "once insert", "WITH replaced AS (UPDATE background_task SET status = 'CANCELLED',"
                + " cancelled_at = ?, last_error = ?, updated_at = ? WHERE once_group = ANY (?::text[]) AND status ="
                + " 'WAITING' AND NOT (once_key = ANY (?::text[])) RETURNING id) INSERT INTO background_task (id, kind,"
                + " team_id, owner_id, scope, filters, status, run, attempts, progress, run_at, created_at, updated_at,"
                + " once_key, once_group) SELECT r.id, r.kind, r.team_id, r.owner_id, r.scope, r.params::jsonb, 'WAITING',"
                + " 0, 0, 0, r.run_at::timestamptz, ?, ?, r.once_key, r.once_group FROM unnest(?::uuid[], ?::text[],"
                + " ?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS r(id, kind, team_id,"
                + " owner_id, scope, params, once_key, run_at, once_group)"
                + " ON CONFLICT (once_key) WHERE once_key IS NOT NULL DO NOTHING", now, replaced, now,
                Jdbc.array("text", columns[8]), Jdbc.array("text", columns[6]), now, now,
                Jdbc.array("uuid", columns[0]), Jdbc.array("text", columns[1]), Jdbc.array("uuid", columns[2]),
                Jdbc.array("uuid", columns[3]), Jdbc.array("text", columns[4]), Jdbc.array("text", columns[5]),
                Jdbc.array("text", columns[6]), Jdbc.array("text", columns[7]), Jdbc.array("text", columns[8]));
    }

    /** A stored parameter's name as {@link #cancelWaiting} inlines it (so that an expression index matches). */
    private static final Pattern PARAM = Pattern.compile("[A-Za-z][A-Za-z0-9_]{0,62}");

    /**
     * R24 (for the reminder): cancels the waiting runs of a kind whose stored parameter has a value. The kind's name
     * and the parameter's are written into the statement as literals (both checked), so that PostgreSQL can use a
     * partial expression index on them (V3's {@code background_task_reminder_ticket_idx}).
     */
    @Override
    @Transactional(TxType.MANDATORY)
    public List<TaskJobId> cancelWaiting(TaskKind kind, UUID teamId, String param, String value, UUID cancelledBy,
            String message, Instant now) {
        if (param == null || !PARAM.matcher(param).matches()) {
            throw new IllegalArgumentException("not a parameter name: " + param);
        }
        String sql = "UPDATE background_task SET status = 'CANCELLED', execution_id = NULL, cancelled_at = ?,"
                + " cancelled_by = ?, last_error = ?, updated_at = ? WHERE kind = '" + kind.name() + "'"
                + " AND status = 'WAITING' AND team_id = ? AND filters->>'" + param + "' = ? RETURNING id, run";
        return jdbc.query(TABLE, "query", sql, TaskJobId.ROW, now, cancelledBy, message, now, teamId, value);
    }

    /**
     * Reads the row under the lease (no lock): used inside a kind's completing transaction as an early
     * exit. It never replaces the check at commit (R14).
     *
     * @throws LeaseLost when the lease no longer matches
     */
    @Override
    public BackgroundTask readUnderLease(Lease lease) {
        return jdbc.query(TABLE, "lease read", "SELECT " + COLUMNS + " FROM background_task" + LEASE, TaskRows.ROW,
                Fencing.withLease(lease)).stream().findFirst()
                .orElseThrow(() -> new LeaseLost(lease, "lease read"));
    }

    /**
     * R11 failure report under the lease: FAILED ({@code isFinal}) or WAITING (will retry),
     * lease cleared, {@code lastError} set.
     *
     * @return true when it matched 1 row; false when 0 (the report is not allowed: return quietly)
     */
    public boolean reportFailure(Lease lease, boolean isFinal, String lastError, Instant now) {
        return reportFailure(lease, isFinal, lastError, ExecutionOutcome.FAILED, now);
    }

    /**
     * R11 failure report as {@link #reportFailure(Lease, boolean, String, Instant)}, recording in the same
     * statement how the execution ended (R43): FAILED, REJECTED or TIMED_OUT, with {@code lastError} as its cause.
     *
     * @return true when it matched 1 row; false when 0 (the report is not allowed: return quietly)
     */
    public boolean reportFailure(Lease lease, boolean isFinal, String lastError, ExecutionOutcome outcome, Instant now) {
        int n = jdbc.update(TABLE, "failure report", "UPDATE background_task SET status = ?, execution_id = NULL,"
                + " last_error = ?, updated_at = ?" + LEASE + " AND " + outcome.sqlCondition(),
                Fencing.withLease(lease, isFinal ? "FAILED" : "WAITING", lastError, now));
        return n == 1;
    }

    /**
     * R16 manual retry (R15 extended by R23): from FAILED or CANCELLED at {@code expectedRun} to a new
     * run {@code run + 1}, WAITING, every execution, result and cancel field reset, {@code runAt = now}.
     *
     * @return the new row, or empty when the task is no longer FAILED or CANCELLED at that run
     */
    public Optional<BackgroundTask> retry(UUID taskId, int expectedRun, Instant now) {
        // Issue 52 (R53): a task that waits for others waits again for those not ended (the caller locked them and
        // refused a retry while one ended without completing, unless the task runs anyway); their ends count again
        String sql = "WITH reopened AS (UPDATE task_dependency x SET settled = false FROM background_task p"
                + " WHERE x.task_id = ? AND p.id = x.prerequisite_id AND x.settled"
                + " AND p.status NOT IN ('COMPLETED', 'FAILED', 'CANCELLED') RETURNING x.task_id)"
                + " UPDATE background_task t SET run = run + 1, status = 'WAITING', progress = 0, attempts = 0,"
                + " last_error = NULL, execution_id = NULL, dispatched_at = NULL, result_execution_id = NULL,"
                + " result_size = NULL, result_sha256 = NULL,"
                + " result_summary = NULL, expires_at = NULL, cancelled_at = NULL, cancelled_by = NULL, run_at = ?,"
                + " updated_at = ?, waits_for = (SELECT count(*) FROM task_dependency x JOIN background_task p"
                + " ON p.id = x.prerequisite_id WHERE x.task_id = t.id"
                + " AND p.status NOT IN ('COMPLETED', 'FAILED', 'CANCELLED'))"
                + " WHERE id = ? AND run = ? AND status IN ('FAILED', 'CANCELLED') RETURNING " + COLUMNS;
        return atMostOne(jdbc.query(TABLE, "query", sql, TaskRows.ROW, taskId, now, now, taskId, expectedRun));
    }

    /**
     * R23 cancel: ONE conditional UPDATE from WAITING or RUNNING to CANCELLED, lease cleared, who
     * and when recorded, {@code lastError} the fixed {@code message}. {@code dispatchedAt} is kept:
     * it marks a run whose queue record may still exist, for reconciliation to remove. A running
     * execution finds its lease gone at its next lease-checked write (R8, R9).
     *
     * @return the cancelled row, or empty when the task is not WAITING or RUNNING (0 rows)
     */
    public Optional<BackgroundTask> cancel(UUID taskId, UUID cancelledBy, String message, Instant now) {
        String sql = "UPDATE background_task SET status = 'CANCELLED', execution_id = NULL, cancelled_at = ?,"
                + " cancelled_by = ?, last_error = ?, updated_at = ? WHERE id = ? AND status IN ('WAITING', 'RUNNING')"
                + " RETURNING " + COLUMNS;
        return atMostOne(jdbc.query(TABLE, "query", sql, TaskRows.ROW, now, cancelledBy, message, now, taskId));
    }

    /**
     * R23 reconciliation: locks up to {@code limit} CANCELLED runs cancelled before {@code cutoff}
     * whose queue record may still exist ({@code dispatchedAt} set).
     */
    public List<TaskJobId> lockCancelledDispatched(Instant cutoff, int limit) {
        return jdbc.query(TABLE, "query", "SELECT id, run FROM background_task WHERE status = 'CANCELLED'"
                + " AND dispatched_at IS NOT NULL AND cancelled_at < ? ORDER BY cancelled_at LIMIT ? FOR UPDATE SKIP LOCKED",
                TaskJobId.ROW, cutoff, limit);
    }

    /**
     * R23 reconciliation: the queue record of a CANCELLED run is gone; clears only the marker
     * {@code dispatchedAt} (status, {@code updatedAt} and every other field stay as the cancel left them).
     */
    public boolean clearCancelledDispatch(TaskJobId job) {
        return jdbc.update(TABLE, "clear cancelled dispatch", "UPDATE background_task SET dispatched_at = NULL WHERE id = ?"
                + " AND run = ? AND status = 'CANCELLED'", job.taskId(), job.run()) == 1;
    }

    /**
     * R18: locks up to {@code limit} due, undispatched WAITING rows for the caller's transaction,
     * skipping rows another sweep holds (safe on several instances).
     *
     * @param onlyTask restrict to one task (dispatch right after creation), or null for all
     * @return the runs with their team and kind (issue 30: the queue job's group and priority) and the trace
     *         context their job carries (R45)
     */
    public List<Dispatch> lockDueForDispatch(Instant now, int limit, UUID onlyTask) {
        Object[] args = onlyTask == null ? new Object[] {now, limit} : new Object[] {now, onlyTask, limit};
        return lockDue(onlyTask == null ? "" : " AND id = ?", args);
    }

    /**
     * Issue 52: locks what the end of {@code taskId} released, for its dispatch right after that end committed: its
     * dependents that wait for nothing more (R53), and the completion of {@code batchId} (R52) when it exists.
     */
    public List<Dispatch> lockReleased(UUID taskId, UUID batchId, Instant now, int limit) {
        return lockDue(RELEASED_BY, " ORDER BY run_at LIMIT ? FOR UPDATE SKIP LOCKED", now, taskId, batchId, limit);
    }

    /**
     * Issue 52: the runs {@link #lockReleased} would lock, read without a lock: after it committed, those it skipped
     * because another transaction held them at that moment (a create naming one as its prerequisite).
     */
    public List<UUID> releasedStillDue(UUID taskId, UUID batchId, Instant now, int limit) {
        return jdbc.query(TABLE, "query", "SELECT id FROM background_task WHERE " + DUE + RELEASED_BY + " ORDER BY id"
                + " LIMIT ?", rs -> Jdbc.uuid(rs, 1), now, taskId, batchId, limit);
    }

    /**
     * Issue 52: locks one due run, waiting for a transaction that holds it at most {@code lockTimeoutMs} (PostgreSQL
     * {@code lock_timeout}, SQLState 55P03 after it). The caller's transaction must hold no other row lock, so that
     * this wait can never be part of a deadlock.
     *
     * @return the run, or empty when it is no longer due (dispatched, cancelled) once the holder committed
     */
    @Transactional(TxType.MANDATORY)
    public List<Dispatch> lockDueWaiting(UUID taskId, Instant now, long lockTimeoutMs) {
        jdbc.update(TABLE, "lock settings", "SELECT set_config('lock_timeout', ?, true)", lockTimeoutMs + "ms");
        return lockDue(" AND id = ?", " FOR UPDATE", now, taskId);
    }

    /** What the end of a task ({@code ?}) or of its batch's last child ({@code ?}) releases (R52, R53). */
    private static final String RELEASED_BY = " AND (id IN (SELECT task_id FROM task_dependency WHERE"
            + " prerequisite_id = ?) OR completes_batch = ?)";

    /** R18: a run to hand to the queue: due, WAITING, not dispatched, waiting for nothing (R53); binds {@code now}. */
    private static final String DUE = "status = 'WAITING' AND dispatched_at IS NULL AND waits_for = 0 AND run_at <= ?";

    /** R18's lock of due, undispatched WAITING runs that wait for nothing (R53), narrowed by {@code where}. */
    private List<Dispatch> lockDue(String where, Object... args) {
        return lockDue(where, " ORDER BY run_at LIMIT ? FOR UPDATE SKIP LOCKED", args);
    }

    private List<Dispatch> lockDue(String where, String lock, Object... args) {
        String sql = "SELECT id, run, team_id, kind, trace_parent FROM background_task WHERE " + DUE + where + lock;
        return jdbc.query(TABLE, "query", sql, Dispatch.ROW, args);
    }

    /**
     * R18: marks locked runs as handed to the queue, in one statement for the whole batch.
     *
     * @return how many rows were marked (runs no longer WAITING are skipped)
     */
    public int markDispatched(List<TaskJobId> jobs, Instant now) {
        if (jobs.isEmpty()) {
            return 0;
        }
        String sql = "UPDATE background_task t SET dispatched_at = ?, updated_at = ?"
                + " FROM unnest(?::uuid[], ?::int[]) AS j(id, run)"
                + " WHERE t.id = j.id AND t.run = j.run AND t.status = 'WAITING'";
        return jdbc.update(TABLE, "mark dispatched", sql, now, now,
                Jdbc.array("uuid", jobs.stream().map(TaskJobId::taskId).toArray()),
                Jdbc.array("integer", jobs.stream().map(TaskJobId::run).toArray()));
    }

    /**
     * R19: RUNNING rows whose last ledger write is older than {@code cutoff} go back to WAITING
     * with lease and dispatch cleared. One statement; rows locked by others are skipped. Each recovered
     * execution's history entry is closed as {@link ExecutionOutcome#STALLED} by the same statement (R43).
     *
     * @return the runs recovered
     */
    public List<TaskJobId> recoverStalled(Instant cutoff, int limit, Instant now) {
        String sql = "UPDATE background_task SET status = 'WAITING', execution_id = NULL, dispatched_at = NULL,"
                + " updated_at = ? WHERE id IN (SELECT id FROM background_task WHERE status = 'RUNNING'"
                + " AND updated_at < ? ORDER BY updated_at LIMIT ? FOR UPDATE SKIP LOCKED) AND "
                + ExecutionOutcome.STALLED.sqlCondition() + " RETURNING id, run";
        return jdbc.query(TABLE, "query", sql, TaskJobId.ROW, now, cutoff, limit);
    }

    /**
     * R45: records the W3C {@code traceparent} of this execution's span as the task's latest ({@code trace_span}),
     * under the lease, so that the next execution links to it. Moves nothing else ({@code updatedAt} stays: it is no
     * sign of progress, R19) and fires no trigger (V15). Only called while tracing is on.
     *
     * @return true when written; false when the lease had moved on already (the execution finds out at its next write)
     */
    public boolean recordSpan(Lease lease, String traceSpan) {
        return jdbc.update(TABLE, "span record", "UPDATE background_task SET trace_span = ?" + LEASE,
                Fencing.withLease(lease, traceSpan)) == 1;
    }

    /**
     * R43/R45: how the history recorded the end of an execution (an {@link ExecutionOutcome} name), read by an
     * execution that lost its lease to learn what ended it (TAKEN_OVER, STALLED, CANCELLED); only while tracing is on.
     *
     * @return the outcome, or empty while the entry is open or when there is none
     */
    public Optional<String> executionOutcome(UUID executionId) {
        return jdbc.query(HISTORY, "query", "SELECT outcome FROM task_execution WHERE execution_id = ? AND outcome IS NOT NULL",
                rs -> rs.getString(1), executionId).stream().findFirst();
    }

    /** R20: locks up to {@code limit} WAITING, dispatched rows not written since {@code cutoff}. */
    public List<TaskJobId> lockDispatchedWaiting(Instant cutoff, int limit) {
        return jdbc.query(TABLE, "query", "SELECT id, run FROM background_task WHERE status = 'WAITING'"
                + " AND dispatched_at IS NOT NULL AND updated_at < ? ORDER BY updated_at LIMIT ? FOR UPDATE SKIP LOCKED",
                TaskJobId.ROW, cutoff, limit);
    }

    /** R20: the queue failed this run for good; the ledger records it with a fixed message. */
    public boolean failFromQueue(TaskJobId job, String lastError, Instant now) {
        return jdbc.update(TABLE, "fail from queue", "UPDATE background_task SET status = 'FAILED', last_error = ?,"
                + " updated_at = ? WHERE id = ? AND run = ? AND status = 'WAITING'", lastError, now, job.taskId(), job.run())
                == 1;
    }

    /**
     * R29 ledger retention: deletes up to {@code limit} finished rows (COMPLETED, FAILED, CANCELLED) last written
     * before {@code cutoff}, oldest first, in the caller's transaction. Never a CANCELLED run whose queue record may
     * still exist ({@code dispatched_at} set: R23 reconciliation has not cleared it yet). Rows another instance's
     * batch holds are skipped. The kinds' rows that name a task go with it or lose the link (migration V5).
     *
     * @param limit rows to delete at most, at least 1 (written into the statement as a literal)
     * @return rows deleted
     */
    @Transactional(TxType.MANDATORY)
    public int deleteFinished(Instant cutoff, int limit) {
        // The batch size is a literal (an int from the configuration): with LIMIT ? a server-side
        // prepared statement's generic plan guesses a third of the ledger and turns into a sequential
        // scan of it (seen in P5 on 10 000 000 rows); with the literal every plan is index scans.
        return jdbc.update(TABLE, "retention", "DELETE FROM background_task WHERE id IN (SELECT id FROM"
                + " background_task WHERE status IN ('COMPLETED', 'FAILED', 'CANCELLED') AND updated_at < ?"
                + " AND NOT (status = 'CANCELLED' AND dispatched_at IS NOT NULL)"
                + " ORDER BY updated_at LIMIT " + limit + " FOR UPDATE SKIP LOCKED)", cutoff);
    }

    // ---- plumbing ----

    private void leaseChecked(Lease lease, String what, String sql, Object... head) {
        Fencing.checkLease(lease, what, jdbc.update(TABLE, what, sql, Fencing.withLease(lease, head)));
    }

    /**
     * @return the one row of a statement that matches at most one (by primary key), or empty
     * @throws IllegalStateException when it returned more (a bug)
     */
    private static <T> Optional<T> atMostOne(List<T> rows) {
        if (rows.size() > 1) {
            throw new IllegalStateException("expected at most one row, got " + rows.size());
        }
        return rows.stream().findFirst();
    }

    /** A claimed row and the lease of the execution that claimed it (R7). */
    public record Claim(BackgroundTask task, Lease lease) {
    }
}
