package com.teamdesk.tasks.task.export;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.CoreRejection;
import com.teamdesk.tasks.task.spi.Execution;
import com.teamdesk.tasks.task.spi.StatementPermits;
import com.teamdesk.tasks.task.spi.TaskRejected;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.team.JdbcTicketReader.RoleHolder;
import com.teamdesk.tasks.team.JdbcTicketReader;
import com.teamdesk.tasks.team.Role;
import com.teamdesk.tasks.team.TeamAccess;
import com.teamdesk.tasks.team.TicketFilter;
import io.opentelemetry.api.trace.Span;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Runs an EXPORT (R13). Memory stays flat in the row count: batches of {@code batch-size} rows
 * (default 500) are read by keyset, each as one PostgreSQL {@code COPY} whose bytes
 * ({@link CopyCsv}) go into chunks of {@code chunk-bytes} (2 MiB) that are stored under the lease
 * while the next batches are copied ({@link ChunkedResult}); the final write is one small
 * lease-checked statement that stores the last chunk and names this execution's chunks as the result.
 * The owner's permission is re-checked with each batch, by the batch's own statement (a batch has no
 * row once the role is gone), and once more on its own before the result is written whenever a batch
 * was read, which is what turns an empty batch after a lost role into {@code PERMISSION_LOST} (a 0-row
 * export was checked with its count, in the same statement). Progress is written after the first batch
 * and then whenever the last lease-checked write is {@code teamdesk.task.lease-check-ms} (1 s) of
 * work ago, checked per row and per batch, so that a cancel (R23), a takeover or the run timeout
 * (R26) stops it within about a second ({@code teamdesk.export.progress-every-batch=true}: after
 * every batch, as before issue 16). Called by {@link ExportHandler}, the EXPORT kind.
 *
 * <p>Over 300 lines: one export's steps ({@link #export}), small and named, read top to bottom in one file with the
 * permission checks and the row arithmetic they share; the chunk stores' threads are {@link ChunkStores}.
 */
@ApplicationScoped
public class ExportRunner {
    private static final Logger LOG = Logger.getLogger(ExportRunner.class.getName());

    @Inject
    JdbcTicketReader tickets;

    @Inject
    TeamAccess access;

    @Inject
    ExportResultStore store;

    /** The tickets an export reads, by COPY on a connection of its own. */
    private static final Jdbc.Table TICKET = Jdbc.Table.of("ticket");

    @Inject
    Jdbc jdbc;

    @Inject
    @ConfigProperty(name = "teamdesk.export.progress-every-batch", defaultValue = "false")
    boolean progressEveryBatch;

    @Inject
    @ConfigProperty(name = "teamdesk.export.batch-size", defaultValue = "500")
    int batchSize;

    @Inject
    @ConfigProperty(name = "teamdesk.export.max-rows", defaultValue = "50000")
    long maxRows;

    @Inject
    @ConfigProperty(name = "teamdesk.export.retention-hours", defaultValue = "24")
    long retentionHours;

    /** Bytes per stored result chunk (default 2 MiB). */
    @Inject
    @ConfigProperty(name = "teamdesk.export.chunk-bytes", defaultValue = "2097152")
    int chunkBytes;

    /** Store each chunk on a thread of its own while the next one is copied (false: on the export's thread). */
    @Inject
    @ConfigProperty(name = "teamdesk.export.chunk-overlap", defaultValue = "true")
    boolean chunkOverlap;

    @Inject
    ChunkStores chunkStores;


    /**
     * Runs the export; a PostgreSQL data error (SQLSTATE class 22, e.g. a date out of range in the
     * stored filters) is the input's fault, so it is a permanent {@link TaskRejected}
     * ({@code INVALID_FILTERS}, R11), never a retryable error.
     */
    public void run(Execution ex) throws IOException {
        try {
            export(ex);
        } catch (RuntimeException e) {
            if (isDataError(e)) {
                throw new TaskRejected(ExportRejection.INVALID_FILTERS, "PostgreSQL data error: " + e.getMessage());
            }
            throw e;
        }
    }

    /** @return true when {@code e} or one of its causes is an SQL data exception (SQLSTATE 22xxx) */
    static boolean isDataError(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("22")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The export's steps, in order: its filters, the owner's permission and the row count, the batches into the
     * result's chunks, the permission re-check, the result write, the queue's report. Each statement that starts new
     * work takes a permit first ({@link Execution#beginStatement()}: R48's bound and R47's yield for this background
     * kind) and gives it back when done.
     */
    private void export(Execution ex) throws IOException {
        BackgroundTask task = ex.task();
        TicketFilter filter = filterOf(task);
        JdbcTicketReader.RoleAndCount start = roleAndCount(ex, filter);
        UUID visibleTo = checkPermission(task, start.role());
        long total = start.count();
        if (total > maxRows) {
            throw new TaskRejected(ExportRejection.TOO_LARGE, total + " rows > limit " + maxRows);
        }
        try (ChunkedResult out = new ChunkedResult(store, ex.lease(), ex.clock(), chunkBytes,
                chunkOverlap ? chunkStores.executor() : null)) {
            try {
                long written = copyBatches(ex, filter, visibleTo, total, out);
                out.finish();
                recheckPermission(ex, total, written);
                writeResult(ex, out, written);
            } catch (IOException | RuntimeException | Error e) {
                out.awaitStoreAndDrop(); // no store in flight when the chunks are deleted
                dropChunks(ex);
                throw e;
            }
        }
        ex.reportCompletedToQueue();
    }

    /** @return the task's stored filters; throws {@code INVALID_FILTERS} when they no longer parse */
    private static TicketFilter filterOf(BackgroundTask task) {
        try {
            return TicketFilter.fromStoredJson(task.params());
        } catch (InvalidInputException e) {
            throw new TaskRejected(ExportRejection.INVALID_FILTERS, e.detail());
        }
    }

    /**
     * The owner's permission and the row count in one statement (issue 16), under a permit; the permission is
     * decided first, by the caller.
     */
    @SuppressWarnings("try") // R48's permit is held for the block and never referenced in it
    private JdbcTicketReader.RoleAndCount roleAndCount(Execution ex, TicketFilter filter) {
        BackgroundTask task = ex.task();
        try (StatementPermits.Permit p = ex.beginStatement()) {
            return tickets.roleAndCount(task.teamId(), task.ownerId(),
                    task.scope() == TaskScope.TEAM ? null : task.ownerId(), filter);
        }
    }

    /**
     * The batches by keyset, each one {@code COPY} into {@code out}, until one comes back short; progress after the
     * first batch and then at least every lease-check interval (R23).
     *
     * @return the rows written
     * @throws TaskRejected TOO_LARGE when more than {@code max-rows} rows are read
     */
    private long copyBatches(Execution ex, TicketFilter filter, UUID visibleTo, long total, ChunkedResult out)
            throws IOException {
        BackgroundTask task = ex.task();
        CopyCsv csv = new CopyCsv(out, filter.timeZone(), usernames(task.teamId()));
        // R13's re-check per batch is part of each batch's statement: no row once the role is gone.
        RoleHolder holder = new RoleHolder(task.ownerId(), task.scope() == TaskScope.TEAM);
        long written = 0;
        CopyCsv.Batch last = null; // the keyset: the batch before
        boolean more = total > 0;
        while (more) {
            CopyCsv.Batch batch = readBatch(ex, csv, tickets.batchQuery(CopyCsv.COLUMNS, task.teamId(), visibleTo,
                    filter, last == null ? null : last.lastCreatedAt(), last == null ? null : last.lastId(), batchSize,
                    holder), percent(written, total));
            if (batch.rows() == 0) {
                break;
            }
            ex.pause(ExportPausePoint.EXPORT_AFTER_BATCH_READ);
            written += batch.rows();
            if (written > maxRows) {
                throw new TaskRejected(ExportRejection.TOO_LARGE, "more than " + maxRows + " rows while reading");
            }
            reportProgress(ex, written == batch.rows(), percent(written, total));
            last = batch;
            more = batch.rows() == batchSize;
        }
        return written;
    }

    /**
     * One batch's {@code COPY} under a permit, as a span inside the execution's (R45; a no-op span while tracing is
     * off), with a lease-checked write at least every ~1 s of work whatever the batch size (R23).
     *
     * @param base the progress before this batch, 0-99
     */
    @SuppressWarnings("try") // R48's permit is held for the block and never referenced in it
    private CopyCsv.Batch readBatch(Execution ex, CopyCsv csv, String query, int base) throws IOException {
        Span batchSpan = ex.span(ExportSpans.BATCH);
        try (StatementPermits.Permit p = ex.beginStatement()) {
            CopyCsv.Batch batch = copyBatch(csv, query, () -> ex.checkLeaseIfDue(base));
            if (batchSpan.isRecording()) {
                batchSpan.setAttribute(ExportSpans.ROWS, (long) batch.rows());
            }
            return batch;
        } finally {
            batchSpan.end();
        }
    }

    /**
     * Progress after the first batch ({@code first}) or after every batch with {@code progress-every-batch}, under a
     * permit; else a lease check only when one is due (about once a second).
     */
    @SuppressWarnings("try") // R48's permit is held for the block and never referenced in it
    private void reportProgress(Execution ex, boolean first, int percent) {
        if (first || progressEveryBatch) {
            try (StatementPermits.Permit p = ex.beginStatement()) {
                ex.progress(percent);
            }
        } else {
            ex.checkLeaseIfDue(percent);
        }
    }

    /**
     * Re-checks the owner's permission, under a permit, before rows leave the run: this is what tells a batch that
     * came back empty because the role is gone from the end of the tickets. An export that read no batch has nothing
     * to protect and was checked a moment ago, with its count (issue 16: one statement less).
     */
    @SuppressWarnings("try") // R48's permit is held for the block and never referenced in it
    private void recheckPermission(Execution ex, long total, long written) {
        if (total > 0 || written > 0) {
            try (StatementPermits.Permit p = ex.beginStatement()) {
                checkPermission(ex.task());
            }
        }
    }

    /** The result write (the last chunk, and this execution's chunks named as the result, lease-checked) under a permit. */
    @SuppressWarnings("try") // R48's permit is held for the block and never referenced in it
    private void writeResult(Execution ex, ChunkedResult out, long written) throws IOException {
        ex.pause(ExportPausePoint.EXPORT_BEFORE_RESULT_WRITE);
        try (StatementPermits.Permit p = ex.beginStatement()) {
            ex.pause(ExportPausePoint.EXPORT_RESULT_WRITE_PERMIT_HELD);
            var now = ex.clock().instant();
            out.complete(summary(written), now.plus(Duration.ofHours(retentionHours)), now);
        }
    }

    /**
     * The export's username look-up: the team's members in one statement when the first row needs a
     * name (an export of no row reads none), anyone else (a former member's old tickets, an outsider) by
     * a statement of their own when first met. Called on the export's thread only.
     */
    private Function<UUID, String> usernames(UUID teamId) {
        Map<UUID, String> members = new HashMap<>();
        return id -> {
            if (members.isEmpty()) { // not read yet: the first read holds at least this id (users are never deleted)
                members.putAll(tickets.usernames(teamId, List.of(id)));
            }
            String name = members.get(id);
            return name != null ? name : tickets.usernames(null, List.of(id)).get(id);
        };
    }

    /** Deletes this execution's chunks after it failed or lost its lease; the sweep is the fallback. */
    private void dropChunks(Execution ex) {
        try {
            store.deleteChunksOf(ex.lease());
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "task.export chunks of " + ex.task().id() + " left to the sweep: " + e);
        }
    }

    /** One batch's COPY on a connection of its own from the pool, like every other read. */
    private CopyCsv.Batch copyBatch(CopyCsv csv, String query, Runnable afterRow) throws IOException {
        return jdbc.withConnection(TICKET, "ticket read", c -> csv.copy(c, query, afterRow));
    }

    /** @return progress 0-99 after {@code written} of {@code total} rows (total may have grown meanwhile) */
    private static int percent(long written, long total) {
        return (int) Math.min(99, written * 100 / Math.max(1, Math.max(total, written)));
    }

    /**
     * Re-checks the owner's permission for the task's scope at execution time (R13, R15).
     *
     * @return the user whose tickets a SELF export is limited to, or null for TEAM scope
     * @throws TaskRejected PERMISSION_LOST when the owner left the team, or is no longer staff
     *                      for a TEAM-scope export
     */
    private UUID checkPermission(BackgroundTask task) {
        return checkPermission(task, access.roleOf(task.teamId(), task.ownerId()));
    }

    /** {@link #checkPermission(BackgroundTask)} with the owner's role as just read (empty: not a member). */
    private static UUID checkPermission(BackgroundTask task, Optional<Role> owner) {
        Role role = owner.orElseThrow(() -> new TaskRejected(CoreRejection.PERMISSION_LOST, "owner is no longer a member"));
        if (task.scope() == TaskScope.TEAM) {
            if (!role.isStaff()) {
                throw new TaskRejected(CoreRejection.PERMISSION_LOST, "owner is no longer staff");
            }
            return null;
        }
        return task.ownerId();
    }

    private static String summary(long rows) {
        return rows == 1 ? "1 ticket exported" : rows + " tickets exported";
    }
}
