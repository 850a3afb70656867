package com.teamdesk.tasks.task.batch;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.task.spi.BatchOutcome;
import com.teamdesk.tasks.task.spi.BatchOutcomes;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.task.spi.TaskStatus;
import com.teamdesk.tasks.team.KeysetCursor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The batches' table, {@code task_batch}: its INSERT, the cancel mark, the lock, and the reads. The counts and
 * {@code finished_at}/{@code completion_task_id} are never written here: only the ledger's trigger moves them
 * (migration V18), in the statement that ends or re-opens a child. SQL errors name the table
 * ({@link com.teamdesk.tasks.platform.TableAccessException}).
 */
@ApplicationScoped
public class BatchStore implements BatchOutcomes {
    private static final Jdbc.Table TABLE = Jdbc.Table.of("task_batch");

    private static final String COLUMNS = "b.id, b.team_id, b.owner_id, b.label, b.size, b.completed, b.failed,"
            + " b.cancelled, b.on_child_failure, b.completion_kind, b.completion_when_cancelled, b.completion_task_id,"
            + " b.finished_at, b.cancelled_at, b.cancelled_by, b.created_at, b.updated_at,"
            + " (SELECT count(*) FROM background_task c WHERE c.batch_id = b.id AND c.status = 'RUNNING')::int,"
            + " (SELECT c.status FROM background_task c WHERE c.id = b.completion_task_id)";

    private static final Jdbc.Row<Batch> ROW = rs -> new Batch(Jdbc.uuid(rs, 1), Jdbc.uuid(rs, 2), Jdbc.uuid(rs, 3),
            rs.getString(4), rs.getInt(5), rs.getInt(6), rs.getInt(7), rs.getInt(8),
            Batch.OnChildFailure.valueOf(rs.getString(9)), rs.getString(10) == null ? null : TaskKind.of(rs.getString(10)),
            rs.getBoolean(11), Jdbc.uuid(rs, 12), Jdbc.instant(rs, 13), Jdbc.instant(rs, 14), Jdbc.uuid(rs, 15),
            Jdbc.instant(rs, 16), Jdbc.instant(rs, 17), rs.getInt(18),
            rs.getString(19) == null ? null : TaskStatus.valueOf(rs.getString(19)));

    @Inject
    Jdbc jdbc;

    /**
     * A new batch, in the caller's transaction (the one that inserts its children).
     *
     * @param completion the completion's kind, scope and parameters (JSON text), or null for none
     */
    @Transactional(TxType.MANDATORY)
    public void insert(UUID id, UUID teamId, UUID ownerId, String label, int size, Batch.OnChildFailure onChildFailure,
            Completion completion, boolean completionWhenCancelled, Instant now) {
        jdbc.updateExpecting(1, TABLE, "insert", "INSERT INTO task_batch (id, team_id, owner_id, label, size,"
                + " on_child_failure, completion_kind, completion_scope, completion_params, completion_when_cancelled,"
                + " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?)", id, teamId, ownerId, label,
                size, onChildFailure.name(), completion == null ? null : completion.kind().name(),
                completion == null ? null : completion.scope().name(), completion == null ? null : completion.params(),
                completionWhenCancelled, now, now);
    }

    /** A batch's completion as stored: the task body that runs once when every child has ended. */
    public record Completion(TaskKind kind, TaskScope scope, String params) {
    }

    /** @return the batch with its live counts, or empty */
    public Optional<Batch> find(UUID id) {
        return jdbc.queryOne(TABLE, "query", "SELECT " + COLUMNS + " FROM task_batch b WHERE b.id = ?", ROW, id);
    }

    /**
     * Locks the batch's row until the caller's transaction ends: the first lock of any code that then changes its
     * waiting children (R52's lock order: batch, then children; the trigger takes child, then batch, but only for a
     * child it ends, which such code does not hold).
     *
     * @return false when there is no such batch
     */
    @Transactional(TxType.MANDATORY)
    public boolean lock(UUID id) {
        return !jdbc.query(TABLE, "lock", "SELECT id FROM task_batch WHERE id = ? FOR UPDATE", rs -> rs.getString(1), id)
                .isEmpty();
    }

    /**
     * Marks the batch cancelled (who and when), once; its waiting children are the ledger's to cancel, in the same
     * transaction.
     *
     * @return false when it was cancelled already
     */
    @Transactional(TxType.MANDATORY)
    public boolean markCancelled(UUID id, UUID by, Instant now) {
        return jdbc.update(TABLE, "cancel", "UPDATE task_batch SET cancelled_at = ?, cancelled_by = ?, updated_at = ?"
                + " WHERE id = ? AND cancelled_at IS NULL", now, by, now, id) == 1;
    }

    /**
     * One page of a team's batches, newest first.
     *
     * @param ownerOnly when not null, only this user's batches (what a customer may see)
     */
    public List<Batch> list(UUID teamId, UUID ownerOnly, Instant afterCreatedAt, UUID afterId, int limit) {
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM task_batch b WHERE b.team_id = ?");
        List<Object> args = new ArrayList<>(List.of(teamId));
        if (ownerOnly != null) {
            sql.append(" AND b.owner_id = ?");
            args.add(ownerOnly);
        }
        KeysetCursor.appendNewestFirst(sql, args, afterCreatedAt, afterId, limit);
        return jdbc.query(TABLE, "list", sql.toString(), ROW, args.toArray());
    }

    @Override
    public Optional<BatchOutcome> of(UUID batchId) {
        Optional<Batch> batch = find(batchId);
        if (batch.isEmpty()) {
            return Optional.empty();
        }
        Batch b = batch.get();
        List<BatchOutcome.Child> unsuccessful = jdbc.query(TABLE, "outcome", "SELECT id, kind, status, last_error,"
                + " filters::text FROM background_task WHERE batch_id = ? AND status IN ('FAILED', 'CANCELLED')"
                + " ORDER BY status = 'FAILED' DESC, created_at, id LIMIT " + BatchOutcome.LISTED,
                rs -> new BatchOutcome.Child(Jdbc.uuid(rs, 1), TaskKind.of(rs.getString(2)),
                        TaskStatus.valueOf(rs.getString(3)), rs.getString(4), rs.getString(5)), batchId);
        List<String> names = new ArrayList<>();
        int[] count = {0};
        jdbc.query(TABLE, "outcome", "SELECT u.display_name, count(*) OVER () FROM app_user u WHERE u.id IN"
                + " (SELECT n.recipient_id FROM notification n JOIN background_task c ON c.id = n.task_id"
                + " WHERE c.batch_id = ?) ORDER BY u.display_name, u.id LIMIT " + BatchOutcome.LISTED, rs -> {
                    names.add(rs.getString(1));
                    count[0] = rs.getInt(2);
                    return null;
                }, batchId);
        return Optional.of(new BatchOutcome(b.id(), b.label(), b.size(), b.completed(), b.failed(), b.cancelled(),
                unsuccessful, names, count[0]));
    }
}
