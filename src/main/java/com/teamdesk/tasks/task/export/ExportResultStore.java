package com.teamdesk.tasks.task.export;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.queue.FlatCombiner;
import com.teamdesk.tasks.task.spi.Binder;
import com.teamdesk.tasks.task.spi.ExecutionLedger;
import com.teamdesk.tasks.task.spi.KindLedger;
import com.teamdesk.tasks.task.spi.Lease;
import com.teamdesk.tasks.task.spi.LeaseLost;
import com.teamdesk.tasks.task.spi.OwnWrites;
import com.teamdesk.tasks.task.spi.ResultCompletion;
import com.teamdesk.tasks.task.spi.RunTimedOut;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The export's own storage (R13, issue 29): its CSV as chunks in {@code task_result_chunk}, named by the
 * lease-checked completion that makes the task COMPLETED, served by {@link #writeResult}, cleared when
 * expired. The task row is the ledger's: the completion with a result, the chunk writes' lease condition and the
 * purge of expired results are its transitions ({@link ExecutionLedger}, {@code JdbcTaskLedger}), and this store
 * only adds its chunk statements to them ({@link OwnWrites}), so every write of an execution is fenced by its lease:
 * a stale execution stores nothing that can be served and deletes nothing. Statements join the caller's JTA
 * transaction when there is one and otherwise run on their own (the export's worker threads run none). SQL errors
 * of its own statements surface as {@link ResultStoreException}.
 *
 * <p>Over 300 lines because the completion comes in two forms (alone, and combined for concurrent executions) whose
 * chunk writes must stay side by side to stay the same transition.
 */
@ApplicationScoped
public class ExportResultStore {
    /** The chunks' table: its SQL errors throw {@link ResultStoreException}. */
    private static final Jdbc.Table CHUNKS = ResultStoreException.on("task_result_chunk");

    /** The task row, read for where its result is stored (the ledger writes it). */
    private static final Jdbc.Table TASK = ResultStoreException.on("background_task");

    @Inject
    Jdbc jdbc;

    @Inject
    ExecutionLedger ledger;

    @Inject
    KindLedger rows;

    /** For CDI. */
    public ExportResultStore() {
    }

    /** A store whose statements {@code jdbc} runs and whose task rows {@code ledger} writes, completions not combined (tools and tests). */
    public <L extends ExecutionLedger & KindLedger> ExportResultStore(Jdbc jdbc, L ledger) {
        this.jdbc = jdbc;
        this.ledger = ledger;
        this.rows = ledger;
    }

    /**
     * R13: stores one chunk of an export's CSV under the lease (R8): the INSERT stores it only while
     * the task is RUNNING with this execution id, as seen at the statement's start; it takes no row
     * lock, so it never holds up the export's own progress write or a claim. A chunk racing a
     * takeover may still be stored, but it can never be served: only the chunks of the execution
     * the lease-checked {@link #completeExport} names are the result, and the others are deleted
     * (winner's completion, {@link #deleteChunksOf}, {@link #purgeOrphanChunks}). The chunk commits asynchronously ({@code synchronous_commit} off for
     * this transaction only): it is served only after {@link #completeExport}, whose synchronous
     * commit flushes the WAL up to and including every earlier chunk (docs/decisions.md).
     *
     * @param seq    0-based position of the chunk in the CSV
     * @param bytes  the chunk's bytes, exactly {@code length} of them, streamed into the statement (the
     *               export keeps a chunk as segments, never as one array: issue 16)
     * @throws LeaseLost   when the lease no longer matches (nothing stored)
     * @throws RunTimedOut when {@code now} is past the lease's deadline (R26); nothing is written
     */
    public void writeResultChunk(Lease lease, int seq, InputStream bytes, int length, Instant now) {
        ledger.writeUnderLease(lease, "result chunk write", now, "INSERT INTO task_result_chunk (task_id, execution_id, seq,"
                + " bytes) SELECT id, execution_id, ?, ? FROM background_task", (c, ps, first) -> {
                    ps.setInt(first, seq);
                    ps.setBinaryStream(first + 1, bytes, length);
                    return first + 2;
                }, true);
    }

    /**
     * R13 final write of an export under the lease, ONE statement: COMPLETED, progress 100, lease
     * cleared, summary, expiry, and the result named as this execution's chunks with their total size
     * and SHA-256; in the same statement the last chunk is stored, and the chunks of other executions
     * of the task (stale ones that lost their lease) are deleted. Both happen only when the lease-checked
     * UPDATE matched its row (they read its {@code RETURNING}, which PostgreSQL re-checks against a
     * concurrent takeover), so a lost lease stores and deletes nothing. An export of at most one chunk
     * (every small one) thus writes its whole result with this one statement and commit (issue 16). The
     * earlier chunks ({@link #writeResultChunk}) must all be committed before; a stale execution's chunk
     * committed after this is left to {@link #purgeOrphanChunks}. Completions that concurrent executions
     * make at the same moment (each with a last chunk of at most 64 KiB) are combined into one statement
     * and commit ({@link #completeExports}), each still checked against its own lease.
     *
     * @param lastSeq    0-based position of the last chunk (the number of chunks stored before)
     * @param lastChunk  the last chunk's bytes, exactly {@code lastLength} of them, streamed into the statement
     *                   (read into an array only when the completion is combined, at most 64 KiB)
     * @param size       bytes of the CSV (the sum of all chunks, the last included)
     * @param sha256     hex SHA-256 of the CSV
     * @throws LeaseLost   when the count is not 1 (nothing stored, nothing deleted)
     * @throws RunTimedOut when {@code now} is past the lease's deadline (R26); nothing is written
     */
    public void completeExport(Lease lease, int lastSeq, InputStream lastChunk, int lastLength, long size, String sha256,
            String summary, Instant expiresAt, Instant now) {
        RunTimedOut.check(lease, "result write", now);
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a CSV of " + size + " bytes is larger than a result may be");
        }
        boolean completed;
        if (exportCompletions != null && lastLength <= COMBINED_CHUNK_BYTES) {
            byte[] last;
            try {
                last = lastChunk.readNBytes(lastLength);
            } catch (IOException e) {
                throw new UncheckedIOException("the last chunk could not be read", e);
            }
            completed = exportCompletions.submit(new ExportCompletion(lease, lastSeq, last, last.length, (int) size,
                    sha256, summary, expiresAt, now));
        } else {
            completed = completeOne(new ResultCompletion(lease, (int) size, sha256, summary, expiresAt, now), lastSeq,
                    lastChunk, lastLength);
        }
        if (!completed) {
            throw new LeaseLost(lease, "result write");
        }
    }

    /** Largest last chunk whose completion is combined with others' (a larger one goes alone). */
    static final int COMBINED_CHUNK_BYTES = 64 * 1024;

    /** Most export completions combined into one statement. */
    static final int COMPLETION_BATCH = 16;

    /**
     * {@code teamdesk.export.completion-batch}: more than 1 combines up to that many (at most
     * {@link #COMPLETION_BATCH}) export completions of concurrent executions into one statement; default 1,
     * each export completes with a statement of its own (measured faster: combining serialises the commits
     * that PostgreSQL's group commit overlaps;
     * docs/decisions.md "Combined claims and completions: measured, and off by default").
     */
    @Inject
    public void completionBatch(@ConfigProperty(name = "teamdesk.export.completion-batch", defaultValue = "1") int batch) {
        exportCompletions = batch > 1 ? new FlatCombiner<>(Math.min(batch, COMPLETION_BATCH), this::completeExports) : null;
    }

    /** One export's final write, as {@link #completeExport} was asked for it ({@code lastChunk} null: streamed). */
    public record ExportCompletion(Lease lease, int lastSeq, byte[] lastChunk, int lastLength, int size, String sha256,
            String summary, Instant expiresAt, Instant now) {
        /** @return what the ledger writes of it */
        ResultCompletion completion() {
            return new ResultCompletion(lease, size, sha256, summary, expiresAt, now);
        }
    }

    /**
     * Export completions of concurrent executions combined into one statement and one commit (issue 16),
     * as the claims are: every completion still checked against its own lease. The worker's threads run
     * no JTA transaction; a reminder's completion is never combined (R14). Null while combining is off.
     */
    private FlatCombiner<ExportCompletion, Boolean> exportCompletions;

    /**
     * {@link #completeExport} of one execution: the ledger's completion with a result, its last chunk streamed from
     * {@code lastChunk} into the same statement.
     *
     * @return true when it completed, false when its lease no longer held
     */
    private boolean completeOne(ResultCompletion e, int lastSeq, InputStream lastChunk, int lastLength) {
        return ledger.completeWithResult(e, new OwnWrites(", last AS (INSERT INTO task_result_chunk (task_id, execution_id,"
                + " seq, bytes) SELECT id, result_execution_id, ?, ? FROM done),"
                // The stale chunks are found through `done` (nothing is deleted when the lease did not hold), not
                // through parameters: the planner then estimates the DELETE the same way in every plan, so
                // PostgreSQL keeps this statement's generic plan instead of planning each completion anew (a
                // custom plan was chosen whenever the chunks' statistics made a given task look cheaper than the
                // average one: ~0.15-0.25 ms of PostgreSQL CPU per completion, issue 16).
                + " stale AS (DELETE FROM task_result_chunk WHERE task_id = (SELECT id FROM done)"
                + " AND execution_id <> (SELECT result_execution_id FROM done))", (c, ps, first) -> {
                    ps.setInt(first, lastSeq);
                    ps.setBinaryStream(first + 1, lastChunk, lastLength);
                    return first + 2;
                }));
    }

    /**
     * {@link #completeExport} for several executions in ONE statement: the ledger's combined completion (each row
     * under its own lease), each last chunk stored and each stale chunk deleted only for a row that completed.
     *
     * @return per completion, in order: true when it completed, false when its lease no longer held
     */
    public List<Boolean> completeExports(List<ExportCompletion> batch) {
        if (batch.size() == 1) {
            ExportCompletion e = batch.get(0);
            return List.of(completeOne(e.completion(), e.lastSeq(), new ByteArrayInputStream(e.lastChunk(), 0,
                    e.lastLength()), e.lastLength()));
        }
        int n = batch.size();
        Object[] ids = new Object[n];
        Object[] executions = new Object[n];
        Object[] seqs = new Object[n];
        byte[][] chunks = new byte[n][];
        for (int k = 0; k < n; k++) {
            ExportCompletion e = batch.get(k);
            ids[k] = e.lease().taskId();
            executions[k] = e.lease().executionId();
            seqs[k] = e.lastSeq();
            chunks[k] = Arrays.copyOf(e.lastChunk(), e.lastLength());
        }
        return ledger.completeWithResults(batch.stream().map(ExportCompletion::completion).toList(), new OwnWrites(
                ", k AS (SELECT * FROM unnest(?::uuid[], ?::uuid[], ?::int[], ?::bytea[]) AS k(k_id, k_execution_id,"
                        + " k_seq, k_bytes)),"
                        + " last AS (INSERT INTO task_result_chunk (task_id, execution_id, seq, bytes)"
                        + " SELECT done.id, done.result_execution_id, k.k_seq, k.k_bytes FROM done"
                        + " JOIN k ON k.k_id = done.id AND k.k_execution_id = done.result_execution_id),"
                        + " stale AS (DELETE FROM task_result_chunk c USING done WHERE c.task_id = done.id"
                        + " AND c.execution_id <> done.result_execution_id)", (c, ps, first) -> {
                            ps.setArray(first, c.createArrayOf("uuid", ids));
                            ps.setArray(first + 1, c.createArrayOf("uuid", executions));
                            ps.setArray(first + 2, c.createArrayOf("integer", seqs));
                            ps.setArray(first + 3, c.createArrayOf("bytea", chunks));
                            return first + 4;
                        }));
    }

    /**
     * Deletes the chunks an execution wrote unless they are its task's result: what an export that
     * failed or lost its lease leaves behind. Best effort; the chunk sweep removes what is left.
     *
     * @return chunks deleted
     */
    public int deleteChunksOf(Lease lease) {
        return jdbc.update(CHUNKS, "delete chunks", "DELETE FROM task_result_chunk WHERE task_id = ? AND execution_id = ?"
                + " AND NOT EXISTS (SELECT 1 FROM background_task WHERE id = ? AND result_execution_id = ?)", lease.taskId(), lease.executionId(), lease.taskId(), lease.executionId());
    }

    /**
     * R13: clears up to {@code limit} CSVs whose 24 h are over, chunks included, in one statement;
     * the task row, summary and expiry stay (410 Gone). Rows another sweep holds are skipped.
     *
     * @return how many results were cleared
     */
    public int purgeExpiredResults(Instant now, int limit) {
        return rows.clearExpiredResults(now, limit, new OwnWrites(
                ", chunks AS (DELETE FROM task_result_chunk WHERE task_id IN (SELECT id FROM done))", Binder.NONE));
    }

    /**
     * Deletes up to {@code limit} chunks that are neither a result nor being written by their task's
     * current execution: left by an execution that lost its lease, failed, or died before it could
     * clean up. Never touches chunks a running execution may still complete with.
     *
     * @return chunks deleted
     */
    public int purgeOrphanChunks(int limit) {
        return jdbc.update(CHUNKS, "purge chunks", "DELETE FROM task_result_chunk WHERE (task_id, execution_id, seq) IN"
                + " (SELECT c.task_id, c.execution_id, c.seq FROM task_result_chunk c JOIN background_task t ON t.id = c.task_id"
                + " WHERE c.execution_id IS DISTINCT FROM t.result_execution_id"
                + " AND NOT (t.status = 'RUNNING' AND c.execution_id = t.execution_id)"
                + " LIMIT " + Math.max(1, limit) + " FOR UPDATE OF c SKIP LOCKED)");
    }

    /** Where a task's stored CSV is: the execution whose chunks hold it, its size and SHA-256 (hex). */
    public record StoredResult(UUID taskId, UUID executionId, int size, String sha256) {
    }

    /** @return where the task's CSV is stored, or empty when none is (not completed, or purged) */
    public Optional<StoredResult> storedResult(UUID taskId) {
        return jdbc.query(TASK, "read result", "SELECT result_execution_id, result_size, result_sha256 FROM background_task"
                + " WHERE id = ? AND result_execution_id IS NOT NULL",
                rs -> new StoredResult(taskId, Jdbc.uuid(rs, 1), rs.getInt(2), rs.getString(3)), taskId).stream().findFirst();
    }

    /**
     * Streams a stored CSV to {@code out}, chunk by chunk in order: one chunk in memory at a time,
     * and a pooled connection only while a chunk is read (never while {@code out} blocks on a
     * slow client).
     *
     * @throws IOException when {@code out} fails, or when the chunks end before {@code result.size()}
     *                     bytes or go past it (e.g. purged during the download): the download must
     *                     then fail rather than look complete
     */
    public void writeResult(StoredResult result, OutputStream out) throws IOException {
        long written = 0;
        for (int seq = 0; written < result.size(); seq++) {
            byte[] chunk = readChunk(result, seq);
            if (chunk == null || written + chunk.length > result.size()) {
                throw new IOException("the stored CSV of task " + result.taskId() + " is incomplete at chunk " + seq);
            }
            out.write(chunk);
            written += chunk.length;
        }
    }

    private byte[] readChunk(StoredResult result, int seq) {
        return jdbc.query(CHUNKS, "read result chunk", "SELECT bytes FROM task_result_chunk WHERE task_id = ?"
                + " AND execution_id = ? AND seq = ?", rs -> rs.getBytes(1), result.taskId(), result.executionId(), seq)
                .stream().findFirst().orElse(null);
    }
}
