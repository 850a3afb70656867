package com.teamdesk.tasks.task.export;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.platform.SchemaMigration;
import com.teamdesk.tasks.task.fairshare.BackgroundCpu;
import com.teamdesk.tasks.task.fairshare.BackgroundStatements;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.CoreRejection;
import com.teamdesk.tasks.task.spi.Execution;
import com.teamdesk.tasks.task.spi.TaskRejected;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.team.JdbcTicketReader.RoleHolder;
import com.teamdesk.tasks.team.JdbcTicketReader;
import com.teamdesk.tasks.team.Role;
import com.teamdesk.tasks.team.TeamAccess;
import com.teamdesk.tasks.team.TicketFilter;
import io.opentelemetry.api.trace.Span;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;
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

    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

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
    BackgroundCpu background;

    @Inject
    BackgroundStatements statements;

    private ExecutorService chunkStores;

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

    @SuppressWarnings("try") // R48's permits are held for their blocks and never referenced in them
    private void export(Execution ex) throws IOException {
        BackgroundTask task = ex.task();
        TicketFilter filter;
        try {
            filter = TicketFilter.fromStoredJson(task.params());
        } catch (InvalidInputException e) {
            throw new TaskRejected(ExportRejection.INVALID_FILTERS, e.detail());
        }
        // R48 and R47: a permit of the background statements' bound and a yield to urgent work before each statement
        // that starts new work. The owner's permission and the row count in one statement (issue 16); the permission
        // is decided first.
        JdbcTicketReader.RoleAndCount start;
        try (BackgroundStatements.Permit p = statements.begin()) {
            start = tickets.roleAndCount(task.teamId(), task.ownerId(),
                    task.scope() == TaskScope.TEAM ? null : task.ownerId(), filter);
        }
        UUID visibleTo = checkPermission(task, start.role());
        long total = start.count();
        if (total > maxRows) {
            throw new TaskRejected(ExportRejection.TOO_LARGE, total + " rows > limit " + maxRows);
        }
        long written = 0;
        try (ChunkedResult out = new ChunkedResult(store, ex.lease(), ex.clock(), chunkBytes,
                chunkOverlap ? chunkStores() : null)) {
            try {
                CopyCsv csv = new CopyCsv(out, filter.timeZone(), usernames(task.teamId()));
                // R13's re-check per batch is part of each batch's statement: no row once the role is gone.
                RoleHolder holder = new RoleHolder(task.ownerId(), task.scope() == TaskScope.TEAM);
                Instant afterCreatedAt = null;
                UUID afterId = null;
                boolean more = total > 0;
                while (more) {
                    int base = percent(written, total);
                    // R23: a lease-checked write at least every ~1 s of work, whatever the batch size.
                    // R45: each batch's COPY is a span inside the execution's (a no-op span while tracing is off)
                    Span batchSpan = ex.span(ExportSpans.BATCH);
                    CopyCsv.Batch batch;
                    try (BackgroundStatements.Permit p = statements.begin()) {
                        batch = copyBatch(csv, tickets.batchQuery(CopyCsv.COLUMNS, task.teamId(), visibleTo,
                                filter, afterCreatedAt, afterId, batchSize, holder), () -> ex.checkLeaseIfDue(base));
                        if (batchSpan.isRecording()) {
                            batchSpan.setAttribute(ExportSpans.ROWS, (long) batch.rows());
                        }
                    } finally {
                        batchSpan.end();
                    }
                    if (batch.rows() == 0) {
                        break;
                    }
                    ex.pause(ExportPausePoint.EXPORT_AFTER_BATCH_READ);
                    written += batch.rows();
                    if (written > maxRows) {
                        throw new TaskRejected(ExportRejection.TOO_LARGE, "more than " + maxRows + " rows while reading");
                    }
                    // Progress after the first batch, then about once a second (the lease-check interval).
                    if (written == batch.rows() || progressEveryBatch) {
                        try (BackgroundStatements.Permit p = statements.begin()) {
                            ex.progress(percent(written, total));
                        }
                    } else {
                        ex.checkLeaseIfDue(percent(written, total));
                    }
                    afterCreatedAt = batch.lastCreatedAt();
                    afterId = batch.lastId();
                    more = batch.rows() == batchSize;
                }
                out.finish();
                if (total > 0 || written > 0) {
                    // Re-checked before rows leave the run, and this is what tells a batch that came back empty
                    // because the role is gone from the end of the tickets. An export that read no batch has
                    // nothing to protect and was checked a moment ago, with its count (issue 16: one statement less).
                    try (BackgroundStatements.Permit p = statements.begin()) {
                        checkPermission(task);
                    }
                }
                ex.pause(ExportPausePoint.EXPORT_BEFORE_RESULT_WRITE);
                try (BackgroundStatements.Permit p = statements.begin()) {
                    ex.pause(ExportPausePoint.EXPORT_RESULT_WRITE_PERMIT_HELD);
                    var now = ex.clock().instant();
                    out.complete(summary(written), now.plus(Duration.ofHours(retentionHours)), now);
                }
            } catch (IOException | RuntimeException | Error e) {
                out.awaitStoreAndDrop(); // no store in flight when the chunks are deleted
                dropChunks(ex);
                throw e;
            }
        }
        ex.reportCompletedToQueue();
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

    /**
     * The threads that store result chunks: the container's at background priority (R46, as the export's own body),
     * made on demand, idle ones end after 60 s.
     */
    private synchronized ExecutorService chunkStores() {
        if (chunkStores == null) {
            chunkStores = Executors.newCachedThreadPool(background.threads());
        }
        return chunkStores;
    }

    /** Stops the chunk-store threads when the application stops. */
    @PreDestroy
    synchronized void stopChunkStores() {
        if (chunkStores != null) {
            chunkStores.shutdown();
        }
    }

    /** One batch's COPY on a connection of its own from the pool, like every other read. */
    private CopyCsv.Batch copyBatch(CopyCsv csv, String query, Runnable afterRow) throws IOException {
        try (Connection c = dataSource.getConnection()) {
            return csv.copy(c, query, afterRow);
        } catch (SQLException e) {
            throw new IllegalStateException("ticket read failed: " + e.getMessage(), e);
        }
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
