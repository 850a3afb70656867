package com.teamdesk.tasks.task.ledger;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.task.spi.TaskStatus;
import java.sql.ResultSet;
import java.time.OffsetDateTime;

/** The {@code background_task} row as a {@link BackgroundTask}: its column list and its row mapper, once. */
final class TaskRows {
    /** Columns of a {@link BackgroundTask}, in record order; also used in RETURNING clauses. */
    static final String COLUMNS = "id, kind, team_id, owner_id, scope, filters::text, status, run, attempts, progress,"
            + " execution_id, dispatched_at, run_at, last_error, result_sha256, result_size, result_summary, expires_at, created_at, updated_at, cancelled_at, cancelled_by,"
            + " schedule_id, slot_at, trace_parent, trace_span, batch_id, completes_batch, waits_for, run_anyway, has_dependents";

    /** How many columns {@link #COLUMNS} selects; a column appended after them is {@code COLUMN_COUNT + 1}. */
    static final int COLUMN_COUNT = 31;

    /** Maps a row selected with {@link #COLUMNS} first. */
    static final Jdbc.Row<BackgroundTask> ROW = rs -> new BackgroundTask(
            Jdbc.uuid(rs, 1),
            TaskKind.of(rs.getString(2)),
            Jdbc.uuid(rs, 3),
            Jdbc.uuid(rs, 4),
            TaskScope.valueOf(rs.getString(5)),
            rs.getString(6),
            TaskStatus.valueOf(rs.getString(7)),
            rs.getInt(8),
            rs.getInt(9),
            rs.getInt(10),
            Jdbc.uuid(rs, 11),
            instant(rs, 12),
            instant(rs, 13),
            rs.getString(14),
            rs.getString(15),
            (Integer) rs.getObject(16),
            rs.getString(17),
            instant(rs, 18),
            instant(rs, 19),
            instant(rs, 20),
            instant(rs, 21),
            Jdbc.uuid(rs, 22),
            Jdbc.uuid(rs, 23),
            instant(rs, 24),
            rs.getString(25),
            rs.getString(26),
            Jdbc.uuid(rs, 27),
            Jdbc.uuid(rs, 28),
            rs.getInt(29),
            rs.getBoolean(30),
            rs.getBoolean(31));

    private TaskRows() {
    }

    private static java.time.Instant instant(ResultSet rs, int col) throws java.sql.SQLException {
        OffsetDateTime t = Jdbc.offsetDateTime(rs, col);
        return t == null ? null : t.toInstant();
    }
}
