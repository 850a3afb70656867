package com.teamdesk.tasks.task.admin;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.task.admin.AdminViews.AdminExecution;
import com.teamdesk.tasks.task.admin.AdminViews.AdminTask;
import com.teamdesk.tasks.task.admin.AdminViews.Count;
import com.teamdesk.tasks.task.admin.AdminViews.OutcomeCount;
import com.teamdesk.tasks.task.admin.AdminViews.RunningRun;
import com.teamdesk.tasks.task.ledger.ExecutionOutcome;
import com.teamdesk.tasks.task.ledger.LedgerException;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.task.spi.TaskStatus;
import com.teamdesk.tasks.team.KeysetCursor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Operator queries over the whole ledger (every team) and the system event log of operator actions.
 * Plain JDBC, one statement each, no transaction. SQL errors throw {@link LedgerException}, or
 * {@link com.teamdesk.tasks.platform.TableAccessException} naming {@code task_execution} for the executions.
 */
@ApplicationScoped
public class JdbcTaskAdmin {
    private static final String COLUMNS = "id, kind, team_id, owner_id, scope, filters::text, status, run, attempts,"
            + " progress, execution_id, claimed_by, dispatched_at, run_at, last_error, result_summary,"
            + " result_size, result_sha256, expires_at, created_at, updated_at, change_seq";

    private static final Jdbc.Table EXECUTIONS = Jdbc.Table.of("task_execution");

    @Inject
    Jdbc jdbc;

    /** Filters of the operator's task list and bulk retry; null fields do not filter. */
    public record Filter(TaskStatus status, TaskKind kind, UUID teamId, Instant createdBefore) {
    }

    /** @return tasks by status and kind (only combinations that exist) */
    public List<Count> counts() {
        return query("SELECT status, kind, count(*) FROM background_task GROUP BY status, kind", rs ->
                new Count(TaskStatus.valueOf(rs.getString(1)), rs.getString(2), rs.getLong(3)));
    }

    /** @return the {@code runAt} of the oldest due WAITING run, if any */
    public Optional<Instant> oldestWaiting(Instant now) {
        return query("SELECT min(run_at) FROM background_task WHERE status = 'WAITING' AND run_at <= ?",
                rs -> Jdbc.instant(rs, 1), now).stream().filter(java.util.Objects::nonNull).findFirst();
    }

    /** @return WAITING runs due and not handed to the queue (R18's backlog) */
    public long dueUndispatched(Instant now) {
        return query("SELECT count(*) FROM background_task WHERE status = 'WAITING' AND dispatched_at IS NULL"
                + " AND waits_for = 0 AND run_at <= ?", rs -> rs.getLong(1), now).get(0);
    }

    /** Issue 52: WAITING runs that wait for other tasks (R53), and batches some of whose children have not ended. */
    public long[] waitingForOthersAndOpenBatches() {
        return query("SELECT (SELECT count(*) FROM background_task WHERE status = 'WAITING' AND waits_for > 0),"
                + " (SELECT count(*) FROM task_batch WHERE finished_at IS NULL)",
                rs -> new long[] {rs.getLong(1), rs.getLong(2)}).get(0);
    }

    /** @return RUNNING runs, oldest ledger write first */
    public List<RunningRun> running(Instant now, int limit) {
        return query("SELECT id, kind, team_id, run, attempts, progress, claimed_by, updated_at FROM background_task"
                + " WHERE status = 'RUNNING' ORDER BY updated_at, id LIMIT ?", rs -> {
                    Instant updated = Jdbc.instant(rs, 8);
                    return new RunningRun(Jdbc.uuid(rs, 1), rs.getString(2), Jdbc.uuid(rs, 3),
                            rs.getInt(4), rs.getInt(5), rs.getInt(6), rs.getString(7), updated,
                            Math.max(0, now.toEpochMilli() - updated.toEpochMilli()));
                }, limit);
    }

    /** @return one page of tasks across teams, newest first, keyset after (createdAt, id) */
    public List<AdminTask> list(Filter f, Instant afterCreatedAt, UUID afterId, int limit) {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM background_task WHERE true");
        List<Object> args = new ArrayList<>();
        where(f, sql, args);
        KeysetCursor.appendNewestFirst(sql, args, afterCreatedAt, afterId, limit);
        return query(sql.toString(), JdbcTaskAdmin::task, args.toArray());
    }

    /** @return the task with every field but the CSV */
    public Optional<AdminTask> find(UUID id) {
        return query("SELECT " + COLUMNS + " FROM background_task WHERE id = ?", JdbcTaskAdmin::task, id).stream()
                .findFirst();
    }

    /** @return ids and runs of FAILED tasks matching the filter, oldest first, at most {@code limit} */
    public List<UUID> failedMatching(Filter f, int limit) {
        StringBuilder sql = new StringBuilder("SELECT id FROM background_task WHERE status = 'FAILED'");
        List<Object> args = new ArrayList<>();
        where(new Filter(null, f.kind(), f.teamId(), f.createdBefore()), sql, args);
        sql.append(" ORDER BY created_at, id LIMIT ?");
        args.add(limit);
        return query(sql.toString(), rs -> Jdbc.uuid(rs, 1), args.toArray());
    }

    /**
     * Filters of the operator's executions (R44); null fields do not filter.
     *
     * @param outcomes the outcomes to keep (empty: any); {@code running} adds the executions not ended yet
     * @param from     keep executions that ran at or after this instant (not ended before it)
     * @param to       keep executions claimed before this instant
     */
    public record ExecutionFilter(Set<ExecutionOutcome> outcomes, boolean running, String worker, UUID teamId,
            TaskKind kind, Instant from, Instant to) {
    }

    /**
     * R44: one page of executions across teams, newest claim first (keyset on claimed_at, execution_id).
     *
     * @param limit rows to read (the page size + 1)
     */
    public List<AdminExecution> executions(ExecutionFilter f, Instant afterClaimedAt, UUID afterId, int limit) {
        StringBuilder sql = new StringBuilder("SELECT e.task_id, t.kind, t.team_id, e.execution_id, e.run, e.attempt,"
                + " e.worker, e.claimed_at, e.ended_at, e.outcome, e.cause, e.progress, e.taken_over_by,"
                + " coalesce(t.batch_id, t.completes_batch)"
                + from(f));
        List<Object> args = new ArrayList<>();
        where(f, sql, args);
        String k = incidentsOnly(f) ? "i" : "e"; // the keyset of the table read first (its index)
        if (afterClaimedAt != null) {
            sql.append(" AND (").append(k).append(".claimed_at, ").append(k).append(".execution_id) < (?, ?)");
            args.add(afterClaimedAt);
            args.add(afterId);
        }
        sql.append(" ORDER BY ").append(k).append(".claimed_at DESC, ").append(k).append(".execution_id DESC LIMIT ?");
        args.add(limit);
        return jdbc.query(EXECUTIONS, "admin executions", sql.toString(), rs -> {
            Instant claimed = Jdbc.instant(rs, 8);
            Instant ended = Jdbc.instant(rs, 9);
            return new AdminExecution(Jdbc.uuid(rs, 1), rs.getString(2), Jdbc.uuid(rs, 3), Jdbc.uuid(rs, 4),
                    rs.getInt(5), rs.getInt(6), rs.getString(7), claimed, ended,
                    rs.getString(10) == null ? null : ExecutionOutcome.valueOf(rs.getString(10)), rs.getString(11),
                    ended == null ? null : ended.toEpochMilli() - claimed.toEpochMilli(), rs.getInt(12),
                    Jdbc.uuid(rs, 13), Jdbc.uuid(rs, 14));
        }, args.toArray());
    }

    /** R44: executions matching the filter by outcome ({@code RUNNING}: not ended), with their distinct workers. */
    public List<OutcomeCount> executionCounts(ExecutionFilter f) {
        StringBuilder sql = new StringBuilder("SELECT coalesce(e.outcome, 'RUNNING'), count(*), count(DISTINCT e.worker)"
                + from(f));
        List<Object> args = new ArrayList<>();
        where(f, sql, args);
        sql.append(" GROUP BY 1");
        return jdbc.query(EXECUTIONS, "admin execution counts", sql.toString(), rs -> new OutcomeCount(rs.getString(1),
                rs.getLong(2), rs.getLong(3)), args.toArray());
    }

    /**
     * The incident view (only STALLED and/or TAKEN_OVER, no running ones) reads the few incidents' side table
     * (V16) instead of walking the whole history; every other filter reads the history.
     */
    private static boolean incidentsOnly(ExecutionFilter f) {
        return !f.running() && !f.outcomes().isEmpty() && INCIDENT_OUTCOMES.containsAll(f.outcomes());
    }

    /** The outcomes V16's trigger appends to {@code task_execution_incident}. */
    private static final Set<ExecutionOutcome> INCIDENT_OUTCOMES = Set.of(ExecutionOutcome.STALLED,
            ExecutionOutcome.TAKEN_OVER);

    private static String from(ExecutionFilter f) {
        return (incidentsOnly(f)
                ? " FROM task_execution_incident i JOIN task_execution e ON e.execution_id = i.execution_id"
                : " FROM task_execution e")
                + " JOIN background_task t ON t.id = e.task_id WHERE true";
    }

    private static void where(ExecutionFilter f, StringBuilder sql, List<Object> args) {
        if (!f.outcomes().isEmpty() || f.running()) {
            List<String> parts = new ArrayList<>();
            if (!f.outcomes().isEmpty()) {
                parts.add("e.outcome IN (" + String.join(", ", java.util.Collections.nCopies(f.outcomes().size(), "?"))
                        + ")");
                f.outcomes().forEach(o -> args.add(o.name()));
            }
            if (f.running()) {
                parts.add("e.outcome IS NULL");
            }
            sql.append(" AND (").append(String.join(" OR ", parts)).append(")");
        }
        if (f.worker() != null) {
            sql.append(" AND e.worker = ?");
            args.add(f.worker());
        }
        if (f.teamId() != null) {
            sql.append(" AND t.team_id = ?");
            args.add(f.teamId());
        }
        if (f.kind() != null) {
            sql.append(" AND t.kind = ?");
            args.add(f.kind().name());
        }
        if (f.from() != null) {
            sql.append(" AND (e.ended_at IS NULL OR e.ended_at >= ?)");
            args.add(f.from());
        }
        if (f.to() != null) {
            sql.append(" AND e.claimed_at < ?");
            args.add(f.to());
        }
    }

    private static void where(Filter f, StringBuilder sql, List<Object> args) {
        if (f.status() != null) {
            sql.append(" AND status = ?");
            args.add(f.status().name());
        }
        if (f.kind() != null) {
            sql.append(" AND kind = ?");
            args.add(f.kind().name());
        }
        if (f.teamId() != null) {
            sql.append(" AND team_id = ?");
            args.add(f.teamId());
        }
        if (f.createdBefore() != null) {
            sql.append(" AND created_at < ?");
            args.add(f.createdBefore());
        }
    }

    private static AdminTask task(ResultSet rs) throws SQLException {
        return new AdminTask(Jdbc.uuid(rs, 1), rs.getString(2), Jdbc.uuid(rs, 3), Jdbc.uuid(rs, 4),
                TaskScope.valueOf(rs.getString(5)), json(rs.getString(6)), TaskStatus.valueOf(rs.getString(7)),
                rs.getInt(8), rs.getInt(9), rs.getInt(10), Jdbc.uuid(rs, 11), rs.getString(12), Jdbc.instant(rs, 13),
                Jdbc.instant(rs, 14), rs.getString(15), rs.getString(16), (Integer) rs.getObject(17), rs.getString(18),
                Jdbc.instant(rs, 19), Jdbc.instant(rs, 20), Jdbc.instant(rs, 21), rs.getLong(22));
    }

    private static JsonObject json(String text) {
        try (JsonReader r = Jsons.PROVIDER.createReader(new StringReader(text == null ? "{}" : text))) {
            return r.readObject();
        }
    }

    private <T> List<T> query(String sql, Jdbc.Row<T> row, Object... args) {
        return jdbc.query(LedgerException.TABLE, "admin query", sql, row, args);
    }

}
