package com.teamdesk.tasks.task.ledger;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskStatus;
import com.teamdesk.tasks.team.KeysetCursor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The API's and the live streams' reads of the ledger (issue 29: reads are not transitions, so they left
 * {@link JdbcTaskLedger}): a team's page of tasks, a task's executions (R43), and rows with their change sequence. Each is one
 * statement; SQL errors surface as {@link LedgerException} ({@link com.teamdesk.tasks.platform.TableAccessException}
 * naming {@code task_execution} for the executions).
 */
@ApplicationScoped
public class TaskReads {
    private static final String COLUMNS = TaskRows.COLUMNS;

    private static final Jdbc.Table EXECUTIONS = Jdbc.Table.of("task_execution");

    @Inject
    Jdbc jdbc;

    /** For CDI. */
    public TaskReads() {
    }

    /** Reads on {@code dataSource} (tools and tests). */
    public TaskReads(DataSource dataSource) {
        this.jdbc = new Jdbc(dataSource);
    }

    /**
     * One page of a team's tasks, newest first.
     *
     * @param ownerOnly when not null, only tasks owned by this user (what a customer may see)
     * @param scheduled when not null: true = only WAITING tasks not yet handed to the queue whose
     *                  {@code runAt} is after {@code now} (R24), false = all others
     * @param after     keyset cursor (createdAt, id) of the last item of the previous page, or null
     */
    public List<BackgroundTask> list(UUID teamId, UUID ownerOnly, TaskStatus status, TaskKind kind, Boolean scheduled,
            Instant now, Instant afterCreatedAt, UUID afterId, int limit) {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM background_task WHERE team_id = ?");
        List<Object> args = new ArrayList<>(List.of(teamId));
        if (ownerOnly != null) {
            sql.append(" AND owner_id = ?");
            args.add(ownerOnly);
        }
        if (status != null) {
            sql.append(" AND status = ?");
            args.add(status.name());
        }
        if (kind != null) {
            sql.append(" AND kind = ?");
            args.add(kind.name());
        }
        if (scheduled != null) {
            sql.append(scheduled ? " AND " : " AND NOT ").append("(status = 'WAITING' AND dispatched_at IS NULL AND run_at > ?)");
            args.add(now);
        }
        KeysetCursor.appendNewestFirst(sql, args, afterCreatedAt, afterId, limit);
        return jdbc.query(LedgerException.TABLE, "list", sql.toString(), TaskRows.ROW, args.toArray());
    }

    /** R54: a batch's children, newest first (keyset on created_at, id), as the API pages them. */
    public List<BackgroundTask> children(UUID batchId, Instant afterCreatedAt, UUID afterId, int limit) {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM background_task WHERE batch_id = ?");
        List<Object> args = new ArrayList<>(List.of(batchId));
        KeysetCursor.appendNewestFirst(sql, args, afterCreatedAt, afterId, limit);
        return jdbc.query(LedgerException.TABLE, "list", sql.toString(), TaskRows.ROW, args.toArray());
    }


    /**
     * R43: one page of a task's executions, newest claim first, keyset on {@code (claimed_at, execution_id)}.
     * Visibility is the caller's ({@code TaskService#executions}).
     *
     * @param afterClaimedAt claimedAt of the last execution of the previous page, or null for the first page
     * @param afterId        its execution id (ignored for the first page)
     * @param limit          rows to read (the page size + 1)
     */
    public List<TaskExecution> executions(UUID taskId, Instant afterClaimedAt, UUID afterId, int limit) {
        StringBuilder sql = new StringBuilder("SELECT execution_id, run, attempt, worker, claimed_at, ended_at, outcome,"
                + " cause, progress, taken_over_by FROM task_execution WHERE task_id = ?");
        List<Object> args = new ArrayList<>(List.of(taskId));
        if (afterClaimedAt != null) {
            sql.append(" AND (claimed_at, execution_id) < (?, ?)");
            args.add(afterClaimedAt);
            args.add(afterId);
        }
        sql.append(" ORDER BY claimed_at DESC, execution_id DESC LIMIT ?");
        args.add(limit);
        return jdbc.query(EXECUTIONS, "executions", sql.toString(), rs -> new TaskExecution(
                Jdbc.uuid(rs, 1), rs.getInt(2), rs.getInt(3), rs.getString(4), Jdbc.instant(rs, 5), Jdbc.instant(rs, 6),
                rs.getString(7) == null ? null : ExecutionOutcome.valueOf(rs.getString(7)), rs.getString(8), rs.getInt(9),
                Jdbc.uuid(rs, 10)), args.toArray());
    }

    /**
     * The row with its change sequence (the event id of live streams, issue 14).
     *
     * @return the row and its {@code change_seq}, or empty when no task has this id
     */
    public Optional<Versioned> findVersioned(UUID id) {
        List<Versioned> rows = queryVersioned("SELECT " + COLUMNS + ", change_seq FROM background_task WHERE id = ?", id);
        return rows.stream().findFirst();
    }

    /**
     * Rows of a team changed after a change sequence, oldest change first: what a live stream
     * reconnecting with {@code Last-Event-ID} missed.
     *
     * @param ownerOnly when not null, only tasks owned by this user (what a customer may see)
     * @param limit     at most this many rows
     */
    public List<Versioned> changedSince(UUID teamId, UUID ownerOnly, long afterSeq, int limit) {
        String sql = "SELECT " + COLUMNS + ", change_seq FROM background_task WHERE team_id = ? AND change_seq > ?"
                + (ownerOnly == null ? "" : " AND owner_id = ?") + " ORDER BY change_seq LIMIT ?";
        Object[] args = ownerOnly == null ? new Object[] {teamId, afterSeq, limit}
                : new Object[] {teamId, afterSeq, ownerOnly, limit};
        return queryVersioned(sql, args);
    }

    private List<Versioned> queryVersioned(String sql, Object... args) {
        return jdbc.query(LedgerException.TABLE, "query", sql,
                rs -> new Versioned(rs.getLong(TaskRows.COLUMN_COUNT + 1), TaskRows.ROW.map(rs)), args);
    }

    /**
     * A row and its change sequence: each write of a row takes a larger one, in commit order for that
     * row (V4 trigger).
     */
    public record Versioned(long seq, BackgroundTask task) {
    }

}
