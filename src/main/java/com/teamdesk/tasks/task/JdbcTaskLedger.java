package com.teamdesk.tasks.task;

import com.teamdesk.tasks.queue.FlatCombiner;
import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.platform.SchemaMigration;
import com.teamdesk.tasks.team.KeysetCursor;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import jakarta.transaction.Transactional.TxType;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The task ledger on PostgreSQL through JDBC. Every state change is ONE conditional statement
 * whose row count is checked: 0 means the lease or the state moved on (R8), more than 1 is a bug
 * and throws {@link IllegalStateException}. Methods join the caller's JTA transaction when there
 * is one (begun by {@link com.teamdesk.tasks.platform.Transactions}) and otherwise run their one
 * statement on its own (auto-commit); {@link #completeReminder} must run inside the reminder's
 * transaction ({@code MANDATORY}). No method begins a transaction: a CDI-begun one would enlist
 * nothing on the worker's threads (docs/platform.md). Times are passed in from the caller's {@link java.time.Clock}.
 * SQL errors surface as {@link LedgerException}.
 */
@ApplicationScoped
public class JdbcTaskLedger {

    /** Columns of a {@link BackgroundTask}, in record order; also used in RETURNING clauses. */
    static final String COLUMNS = "id, kind, team_id, owner_id, scope, filters::text, status, run, attempts, progress,"
            + " execution_id, dispatched_at, run_at, last_error, result_sha256, result_size, result_summary, expires_at, created_at, updated_at, cancelled_at, cancelled_by";

    /** How many columns {@link #COLUMNS} selects; a column appended after them is {@code COLUMN_COUNT + 1}. */
    static final int COLUMN_COUNT = 22;

    /**
     * The lease check of every write of an execution (R8): its row, run and fencing token. It names no
     * status: the table's CHECK {@code execution_id IS NULL OR status = 'RUNNING'} makes a matching token
     * imply RUNNING. Written with {@code status = 'RUNNING'} too, the condition matched the predicate of
     * {@code background_task_running_idx}, and after an ANALYZE that saw few RUNNING rows the planner
     * scanned that whole partial index (with its dead entries) for every lease-checked write instead of
     * looking the row up by its primary key (issue 16).
     */
    private static final String LEASE = " WHERE id = ? AND run = ? AND execution_id = ?";

    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

    @Inject
    RunTimeouts timeouts;

    /**
     * A new task as created by {@link TaskService}: WAITING, run 0, one INSERT that returns the row.
     * When {@code dispatched}, the row is marked handed to the queue at {@code now} in the same
     * statement (R18); the caller adds the queue job after its transaction committed, so a worker never
     * finds a job whose row it cannot yet see or must wait to lock (issue 16).
     *
     * @param paramsJson the kind's parameters ({@link TaskKindHandler#store}), into column {@code filters}
     * @return the row as inserted
     */
    public BackgroundTask insert(UUID id, TaskKind kind, UUID teamId, UUID ownerId, TaskScope scope, String paramsJson,
            Instant runAt, Instant now, boolean dispatched) {
        return queryOne("INSERT INTO background_task (id, kind, team_id, owner_id, scope, filters, status, run, attempts,"
                + " progress, dispatched_at, run_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?::jsonb, 'WAITING', 0,"
                + " 0, 0, ?, ?, ?, ?) RETURNING " + COLUMNS, id, kind.name(), teamId, ownerId, scope.name(), paramsJson,
                dispatched ? now : null, runAt, now, now)
                .orElseThrow(() -> new IllegalStateException("INSERT … RETURNING returned no row"));
    }

    /** A new task, not marked dispatched: {@link #insert(UUID, TaskKind, UUID, UUID, TaskScope, String, Instant, Instant, boolean)}. */
    public BackgroundTask insert(UUID id, TaskKind kind, UUID teamId, UUID ownerId, TaskScope scope, String paramsJson,
            Instant runAt, Instant now) {
        return insert(id, kind, teamId, ownerId, scope, paramsJson, runAt, now, false);
    }

    /**
     * R18: takes back the dispatch mark of a run whose queue job could not be added after its creating
     * transaction committed, so that the dispatch sweep adds it; only while the run still waits with
     * exactly that mark. One statement.
     *
     * @return true when the mark was cleared
     */
    public boolean undispatch(TaskJobId job, Instant dispatchedAt) {
        return update("UPDATE background_task SET dispatched_at = NULL WHERE id = ? AND run = ? AND status = 'WAITING'"
                + " AND dispatched_at = ?", -1, "undispatch", job.taskId(), job.run(), dispatchedAt) == 1;
    }

    /** @return the row, or empty when no task has this id */
    public Optional<BackgroundTask> find(UUID id) {
        return queryOne("SELECT " + COLUMNS + " FROM background_task WHERE id = ?", id);
    }

    /**
     * The condition that makes an auto-commit transaction commit asynchronously ({@code synchronous_commit}
     * off for that transaction only), for writes whose durability a later synchronous write carries: claims
     * and result chunks (docs/decisions.md "Claims commit asynchronously", "Chunk commits are
     * asynchronous"). A claim is a lease, not a result: every write that depends on it is lease-checked
     * and commits synchronously, and PostgreSQL flushes its WAL in order, so a durable write of an
     * execution implies its durable claim; a claim lost in a database crash is a lost lease (R8), and
     * its run is taken up again by reconciliation or stall recovery (R19, R20).
     */
    private static final String ASYNC_COMMIT = " AND set_config('synchronous_commit', 'off', true) IS NOT NULL";

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
        Optional<BackgroundTask> row = queryOne("UPDATE background_task SET status = 'RUNNING', execution_id = ?,"
                + " attempts = ?, progress = 0, claimed_by = ?, updated_at = ?"
                + " WHERE id = ? AND run = ? AND status IN ('WAITING', 'RUNNING')" + ASYNC_COMMIT + " RETURNING " + COLUMNS,
                executionId, attemptsMade + 1, claimedBy, now, taskId, run);
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
        Map<UUID, BackgroundTask> rows = new HashMap<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
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
            ps.setArray(1, c.createArrayOf("uuid", ids));
            ps.setArray(2, c.createArrayOf("integer", runs));
            ps.setArray(3, c.createArrayOf("uuid", tokens));
            ps.setArray(4, c.createArrayOf("integer", attempts));
            ps.setArray(5, c.createArrayOf("text", workers));
            ps.setArray(6, c.createArrayOf("text", times));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    BackgroundTask t = map(rs);
                    rows.put(t.id(), t);
                }
            }
        } catch (SQLException e) {
            throw new LedgerException("claim", e);
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
        checkDeadline(lease, "progress write", now);
        leaseChecked(lease, "progress write", "UPDATE background_task SET progress = ?, updated_at = ?" + LEASE,
                progress, now);
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
        checkDeadline(lease, "result chunk write", now);
        String sql = "INSERT INTO task_result_chunk (task_id, execution_id, seq, bytes) SELECT id, execution_id, ?, ?"
                + " FROM background_task" + LEASE + ASYNC_COMMIT;
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, seq);
            ps.setBinaryStream(2, bytes, length);
            Jdbc.bind(ps, 3, lease.taskId(), lease.run(), lease.executionId());
            checkLease(lease, "result chunk write", ps.executeUpdate());
        } catch (SQLException e) {
            throw new LedgerException("result chunk write", e);
        }
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
        checkDeadline(lease, "result write", now);
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
            completed = completeOne(new ExportCompletion(lease, lastSeq, null, lastLength, (int) size, sha256, summary,
                    expiresAt, now), lastChunk);
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
    void completionBatch(@ConfigProperty(name = "teamdesk.export.completion-batch", defaultValue = "1") int batch) {
        exportCompletions = batch > 1 ? new FlatCombiner<>(Math.min(batch, COMPLETION_BATCH), this::completeExports) : null;
    }

    /** One export's final write, as {@link #completeExport} was asked for it ({@code lastChunk} null: streamed). */
    record ExportCompletion(Lease lease, int lastSeq, byte[] lastChunk, int lastLength, int size, String sha256,
            String summary, Instant expiresAt, Instant now) {
    }

    /**
     * Export completions of concurrent executions combined into one statement and one commit (issue 16),
     * as the claims are: every completion still checked against its own lease. The worker's threads run
     * no JTA transaction; a reminder's completion is never combined (R14). Null while combining is off.
     */
    private FlatCombiner<ExportCompletion, Boolean> exportCompletions;

    /**
     * {@link #completeExport} of one execution in one statement, its last chunk streamed from {@code lastChunk}.
     *
     * @return true when it completed, false when its lease no longer held
     */
    private boolean completeOne(ExportCompletion e, InputStream lastChunk) {
        Lease lease = e.lease();
        String sql = "WITH done AS (UPDATE background_task SET result_execution_id = execution_id, result_size = ?,"
                + " result_sha256 = ?, result_summary = ?, expires_at = ?, status = 'COMPLETED', progress = 100,"
                + " execution_id = NULL, last_error = NULL, updated_at = ?" + LEASE
                + " RETURNING id, result_execution_id),"
                + " last AS (INSERT INTO task_result_chunk (task_id, execution_id, seq, bytes)"
                + " SELECT id, result_execution_id, ?, ? FROM done),"
                // The stale chunks are found through `done` (nothing is deleted when the lease did not hold), not
                // through parameters: the planner then estimates the DELETE the same way in every plan, so
                // PostgreSQL keeps this statement's generic plan instead of planning each completion anew (a
                // custom plan was chosen whenever the chunks' statistics made a given task look cheaper than the
                // average one: ~0.15-0.25 ms of PostgreSQL CPU per completion, issue 16).
                + " stale AS (DELETE FROM task_result_chunk WHERE task_id = (SELECT id FROM done)"
                + " AND execution_id <> (SELECT result_execution_id FROM done))"
                + " SELECT count(*) FROM done";
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            Jdbc.bind(ps, 1, e.size(), e.sha256(), e.summary(), e.expiresAt(), e.now(), lease.taskId(), lease.run(),
                    lease.executionId(), e.lastSeq());
            ps.setBinaryStream(10, lastChunk, e.lastLength());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                int n = rs.getInt(1);
                if (n > 1) {
                    throw new IllegalStateException("result write matched " + n + " rows for task " + lease.taskId());
                }
                return n == 1;
            }
        } catch (SQLException ex) {
            throw new LedgerException("result write", ex);
        }
    }

    /**
     * {@link #completeExport} for several executions in ONE statement: each row completed under its own
     * lease, its last chunk stored and its stale chunks deleted only when its UPDATE matched; rows are
     * locked in id order (as {@link #claimAll}), so such statements never deadlock.
     *
     * @return per completion, in order: true when it completed, false when its lease no longer held
     */
    List<Boolean> completeExports(List<ExportCompletion> batch) {
        if (batch.size() == 1) {
            ExportCompletion e = batch.get(0);
            return List.of(completeOne(e, new ByteArrayInputStream(e.lastChunk(), 0, e.lastLength())));
        }
        String sql = "WITH j AS (SELECT * FROM unnest(?::uuid[], ?::int[], ?::uuid[], ?::int[], ?::text[], ?::text[],"
                + " ?::timestamptz[], ?::timestamptz[], ?::int[], ?::bytea[]) AS j(j_id, j_run, j_execution_id, j_size,"
                + " j_sha256, j_summary, j_expires_at, j_now, j_seq, j_bytes)),"
                + " locked AS MATERIALIZED (SELECT t.id FROM background_task t JOIN j ON t.id = j.j_id AND t.run = j.j_run"
                + " AND t.execution_id = j.j_execution_id ORDER BY t.id FOR UPDATE OF t),"
                + " done AS (UPDATE background_task SET result_execution_id = execution_id, result_size = j.j_size,"
                + " result_sha256 = j.j_sha256, result_summary = j.j_summary, expires_at = j.j_expires_at,"
                + " status = 'COMPLETED', progress = 100, execution_id = NULL, last_error = NULL, updated_at = j.j_now"
                + " FROM j WHERE id = j.j_id AND run = j.j_run AND execution_id = j.j_execution_id"
                + " AND id IN (SELECT id FROM locked) RETURNING id, result_execution_id),"
                + " last AS (INSERT INTO task_result_chunk (task_id, execution_id, seq, bytes)"
                + " SELECT done.id, done.result_execution_id, j.j_seq, j.j_bytes FROM done"
                + " JOIN j ON j.j_id = done.id AND j.j_execution_id = done.result_execution_id),"
                + " stale AS (DELETE FROM task_result_chunk c USING done WHERE c.task_id = done.id"
                + " AND c.execution_id <> done.result_execution_id)"
                + " SELECT id, result_execution_id FROM done";
        Set<List<UUID>> completed = new HashSet<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            int n = batch.size();
            Object[][] columns = new Object[10][n];
            for (int k = 0; k < n; k++) {
                ExportCompletion e = batch.get(k);
                columns[0][k] = e.lease().taskId();
                columns[1][k] = e.lease().run();
                columns[2][k] = e.lease().executionId();
                columns[3][k] = e.size();
                columns[4][k] = e.sha256();
                columns[5][k] = e.summary();
                columns[6][k] = e.expiresAt().toString();
                columns[7][k] = e.now().toString();
                columns[8][k] = e.lastSeq();
            }
            byte[][] chunks = new byte[n][];
            for (int k = 0; k < n; k++) {
                chunks[k] = Arrays.copyOf(batch.get(k).lastChunk(), batch.get(k).lastLength());
            }
            String[] types = {"uuid", "integer", "uuid", "integer", "text", "text", "text", "text", "integer"};
            for (int col = 0; col < types.length; col++) {
                ps.setArray(col + 1, c.createArrayOf(types[col], columns[col]));
            }
            ps.setArray(10, c.createArrayOf("bytea", chunks));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    completed.add(List.of(Jdbc.uuid(rs, 1), Jdbc.uuid(rs, 2)));
                }
            }
        } catch (SQLException ex) {
            throw new LedgerException("result write", ex);
        }
        List<Boolean> out = new ArrayList<>(batch.size());
        for (ExportCompletion e : batch) {
            out.add(completed.contains(List.of(e.lease().taskId(), e.lease().executionId())));
        }
        return out;
    }

    /**
     * Deletes the chunks an execution wrote unless they are its task's result: what an export that
     * failed or lost its lease leaves behind. Best effort; the chunk sweep removes what is left.
     *
     * @return chunks deleted
     */
    public int deleteChunksOf(Lease lease) {
        return update("DELETE FROM task_result_chunk WHERE task_id = ? AND execution_id = ? AND NOT EXISTS"
                + " (SELECT 1 FROM background_task WHERE id = ? AND result_execution_id = ?)", -1, "delete chunks",
                lease.taskId(), lease.executionId(), lease.taskId(), lease.executionId());
    }

    /**
     * R14 completion of a reminder, inside the reminder's JTA transaction: COMPLETED, progress
     * 100, lease cleared, under the lease.
     *
     * @throws LeaseLost   when the count is not 1, so that the caller's transaction rolls back
     * @throws RunTimedOut when {@code now} is past the lease's deadline (R26): rolls back too
     */
    @Transactional(TxType.MANDATORY)
    public void completeReminder(Lease lease, Instant now) {
        checkDeadline(lease, "reminder completion", now);
        leaseChecked(lease, "reminder completion", "UPDATE background_task SET status = 'COMPLETED', progress = 100,"
                + " execution_id = NULL, last_error = NULL, updated_at = ?" + LEASE, now);
    }

    /**
     * Reads the row under the lease (no lock): used inside the reminder's transaction as an early
     * exit. It never replaces the check at commit (R14).
     *
     * @throws LeaseLost when the lease no longer matches
     */
    public BackgroundTask readUnderLease(Lease lease) {
        return queryOne("SELECT " + COLUMNS + " FROM background_task" + LEASE, lease.taskId(), lease.run(),
                lease.executionId()).orElseThrow(() -> new LeaseLost(lease, "lease read"));
    }

    /**
     * R11 failure report under the lease: FAILED ({@code isFinal}) or WAITING (will retry),
     * lease cleared, {@code lastError} set.
     *
     * @return true when it matched 1 row; false when 0 (the report is not allowed: return quietly)
     */
    public boolean reportFailure(Lease lease, boolean isFinal, String lastError, Instant now) {
        int n = update("UPDATE background_task SET status = ?, execution_id = NULL, last_error = ?, updated_at = ?" + LEASE,
                -1, "failure report", isFinal ? "FAILED" : "WAITING", lastError, now, lease.taskId(), lease.run(),
                lease.executionId());
        return n == 1;
    }

    /**
     * R16 manual retry (R15 extended by R23): from FAILED or CANCELLED at {@code expectedRun} to a new
     * run {@code run + 1}, WAITING, every execution, result and cancel field reset, {@code runAt = now}.
     *
     * @return the new row, or empty when the task is no longer FAILED or CANCELLED at that run
     */
    public Optional<BackgroundTask> retry(UUID taskId, int expectedRun, Instant now) {
        return queryOne("UPDATE background_task SET run = run + 1, status = 'WAITING', progress = 0, attempts = 0,"
                + " last_error = NULL, execution_id = NULL, dispatched_at = NULL, result_execution_id = NULL,"
                + " result_size = NULL, result_sha256 = NULL,"
                + " result_summary = NULL, expires_at = NULL, cancelled_at = NULL, cancelled_by = NULL, run_at = ?,"
                + " updated_at = ? WHERE id = ? AND run = ? AND status IN ('FAILED', 'CANCELLED') RETURNING " + COLUMNS,
                now, now, taskId, expectedRun);
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
        return queryOne("UPDATE background_task SET status = 'CANCELLED', execution_id = NULL, cancelled_at = ?,"
                + " cancelled_by = ?, last_error = ?, updated_at = ? WHERE id = ? AND status IN ('WAITING', 'RUNNING')"
                + " RETURNING " + COLUMNS, now, cancelledBy, message, now, taskId);
    }

    /**
     * R24: cancels the WAITING (not yet running) reminders of a ticket being closed, in the caller's
     * transaction (the ticket PATCH), like {@link #cancel} row by row.
     *
     * @return the runs cancelled
     */
    @Transactional(TxType.MANDATORY)
    public List<TaskJobId> cancelWaitingReminders(UUID teamId, UUID ticketId, UUID cancelledBy, String message,
            Instant now) {
        return queryJobIds("UPDATE background_task SET status = 'CANCELLED', execution_id = NULL, cancelled_at = ?,"
                + " cancelled_by = ?, last_error = ?, updated_at = ? WHERE kind = 'REMINDER' AND status = 'WAITING'"
                + " AND team_id = ? AND filters->>'ticketId' = ? RETURNING id, run",
                now, cancelledBy, message, now, teamId, ticketId.toString());
    }

    /**
     * R23 reconciliation: locks up to {@code limit} CANCELLED runs cancelled before {@code cutoff}
     * whose queue record may still exist ({@code dispatchedAt} set).
     */
    public List<TaskJobId> lockCancelledDispatched(Instant cutoff, int limit) {
        return queryJobIds("SELECT id, run FROM background_task WHERE status = 'CANCELLED' AND dispatched_at IS NOT NULL"
                + " AND cancelled_at < ? ORDER BY cancelled_at LIMIT ? FOR UPDATE SKIP LOCKED", cutoff, limit);
    }

    /**
     * R23 reconciliation: the queue record of a CANCELLED run is gone; clears only the marker
     * {@code dispatchedAt} (status, {@code updatedAt} and every other field stay as the cancel left them).
     */
    public boolean clearCancelledDispatch(TaskJobId job) {
        return update("UPDATE background_task SET dispatched_at = NULL WHERE id = ? AND run = ? AND status = 'CANCELLED'",
                -1, "clear cancelled dispatch", job.taskId(), job.run()) == 1;
    }

    /**
     * R18: locks up to {@code limit} due, undispatched WAITING rows for the caller's transaction,
     * skipping rows another sweep holds (safe on several instances).
     *
     * @param onlyTask restrict to one task (dispatch right after creation), or null for all
     */
    public List<TaskJobId> lockDueForDispatch(Instant now, int limit, UUID onlyTask) {
        String sql = "SELECT id, run FROM background_task WHERE status = 'WAITING' AND dispatched_at IS NULL"
                + " AND run_at <= ?" + (onlyTask == null ? "" : " AND id = ?")
                + " ORDER BY run_at LIMIT ? FOR UPDATE SKIP LOCKED";
        Object[] args = onlyTask == null ? new Object[] {now, limit} : new Object[] {now, onlyTask, limit};
        return queryJobIds(sql, args);
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
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            Jdbc.bind(ps, 1, now, now);
            ps.setArray(3, c.createArrayOf("uuid", jobs.stream().map(TaskJobId::taskId).toArray()));
            ps.setArray(4, c.createArrayOf("integer", jobs.stream().map(TaskJobId::run).toArray()));
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new LedgerException("mark dispatched", e);
        }
    }

    /**
     * R19: RUNNING rows whose last ledger write is older than {@code cutoff} go back to WAITING
     * with lease and dispatch cleared. One statement; rows locked by others are skipped.
     *
     * @return the runs recovered
     */
    public List<TaskJobId> recoverStalled(Instant cutoff, int limit, Instant now) {
        return queryJobIds("UPDATE background_task SET status = 'WAITING', execution_id = NULL, dispatched_at = NULL,"
                + " updated_at = ? WHERE id IN (SELECT id FROM background_task WHERE status = 'RUNNING'"
                + " AND updated_at < ? ORDER BY updated_at LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING id, run",
                now, cutoff, limit);
    }

    /** R20: locks up to {@code limit} WAITING, dispatched rows not written since {@code cutoff}. */
    public List<TaskJobId> lockDispatchedWaiting(Instant cutoff, int limit) {
        return queryJobIds("SELECT id, run FROM background_task WHERE status = 'WAITING' AND dispatched_at IS NOT NULL"
                + " AND updated_at < ? ORDER BY updated_at LIMIT ? FOR UPDATE SKIP LOCKED", cutoff, limit);
    }

    /** R20: the queue failed this run for good; the ledger records it with a fixed message. */
    public boolean failFromQueue(TaskJobId job, String lastError, Instant now) {
        return update("UPDATE background_task SET status = 'FAILED', last_error = ?, updated_at = ? WHERE id = ?"
                + " AND run = ? AND status = 'WAITING'", -1, "fail from queue",
                lastError, now, job.taskId(), job.run()) == 1;
    }

    /**
     * R13: clears up to {@code limit} CSVs whose 24 h are over, chunks included, in one statement;
     * the task row, summary and expiry stay (410 Gone). Rows another sweep holds are skipped.
     *
     * @return how many results were cleared
     */
    public int purgeExpiredResults(Instant now, int limit) {
        return count("WITH purged AS (UPDATE background_task SET result_execution_id = NULL, result_size = NULL,"
                + " result_sha256 = NULL, updated_at = ? WHERE id IN (SELECT id FROM background_task"
                + " WHERE result_sha256 IS NOT NULL AND expires_at <= ? LIMIT ? FOR UPDATE SKIP LOCKED)"
                + " RETURNING id), chunks AS (DELETE FROM task_result_chunk WHERE task_id IN (SELECT id FROM purged))"
                + " SELECT count(*) FROM purged", "purge", now, now, limit);
    }

    /**
     * Deletes up to {@code limit} chunks that are neither a result nor being written by their task's
     * current execution: left by an execution that lost its lease, failed, or died before it could
     * clean up. Never touches chunks a running execution may still complete with.
     *
     * @return chunks deleted
     */
    public int purgeOrphanChunks(int limit) {
        return update("DELETE FROM task_result_chunk WHERE (task_id, execution_id, seq) IN (SELECT c.task_id,"
                + " c.execution_id, c.seq FROM task_result_chunk c JOIN background_task t ON t.id = c.task_id"
                + " WHERE c.execution_id IS DISTINCT FROM t.result_execution_id"
                + " AND NOT (t.status = 'RUNNING' AND c.execution_id = t.execution_id)"
                + " LIMIT " + Math.max(1, limit) + " FOR UPDATE OF c SKIP LOCKED)", -1, "purge chunks");
    }

    /** Where a task's stored CSV is: the execution whose chunks hold it, its size and SHA-256 (hex). */
    public record StoredResult(UUID taskId, UUID executionId, int size, String sha256) {
    }

    /** @return where the task's CSV is stored, or empty when none is (not completed, or purged) */
    public Optional<StoredResult> storedResult(UUID taskId) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT result_execution_id, result_size, result_sha256 FROM background_task WHERE id = ?"
                        + " AND result_execution_id IS NOT NULL")) {
            ps.setObject(1, taskId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(new StoredResult(taskId, Jdbc.uuid(rs, 1), rs.getInt(2), rs.getString(3)))
                        : Optional.empty();
            }
        } catch (SQLException e) {
            throw new LedgerException("read result", e);
        }
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
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT bytes FROM task_result_chunk WHERE task_id = ? AND execution_id = ? AND seq = ?")) {
            Jdbc.bind(ps, 1, result.taskId(), result.executionId(), seq);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getBytes(1) : null;
            }
        } catch (SQLException e) {
            throw new LedgerException("read result chunk", e);
        }
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
        return query(sql.toString(), args.toArray());
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
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            Jdbc.bind(ps, 1, args);
            try (ResultSet rs = ps.executeQuery()) {
                List<Versioned> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(new Versioned(rs.getLong(COLUMN_COUNT + 1), map(rs)));
                }
                return out;
            }
        } catch (SQLException e) {
            throw new LedgerException("query", e);
        }
    }

    // ---- plumbing ----

    private void leaseChecked(Lease lease, String what, String sql, Object... head) {
        Object[] args = new Object[head.length + 3];
        System.arraycopy(head, 0, args, 0, head.length);
        args[head.length] = lease.taskId();
        args[head.length + 1] = lease.run();
        args[head.length + 2] = lease.executionId();
        checkLease(lease, what, update(sql, -1, what, args));
    }

    /** R26: a lease-checked write after the execution's deadline is refused before it is made. */
    private static void checkDeadline(Lease lease, String what, Instant now) {
        if (lease.deadline() != null && now.isAfter(lease.deadline())) {
            throw new RunTimedOut(lease, what);
        }
    }

    private static void checkLease(Lease lease, String what, int count) {
        if (count == 0) {
            throw new LeaseLost(lease, what);
        }
        if (count != 1) {
            throw new IllegalStateException(what + " matched " + count + " rows for task " + lease.taskId());
        }
    }

    /** Executes a statement; {@code expected >= 0} demands that exact count, -1 accepts 0 or 1+. */
    private int update(String sql, int expected, String what, Object... args) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            Jdbc.bind(ps, 1, args);
            int n = ps.executeUpdate();
            if (expected >= 0 && n != expected) {
                throw new IllegalStateException(what + " matched " + n + " rows, expected " + expected);
            }
            return n;
        } catch (SQLException e) {
            throw new LedgerException(what, e);
        }
    }

    private int count(String sql, String what, Object... args) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            Jdbc.bind(ps, 1, args);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        } catch (SQLException e) {
            throw new LedgerException(what, e);
        }
    }

    private Optional<BackgroundTask> queryOne(String sql, Object... args) {
        List<BackgroundTask> rows = query(sql, args);
        if (rows.size() > 1) {
            throw new IllegalStateException("expected at most one row, got " + rows.size());
        }
        return rows.stream().findFirst();
    }

    private List<BackgroundTask> query(String sql, Object... args) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            Jdbc.bind(ps, 1, args);
            try (ResultSet rs = ps.executeQuery()) {
                List<BackgroundTask> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(map(rs));
                }
                return out;
            }
        } catch (SQLException e) {
            throw new LedgerException("query", e);
        }
    }

    private List<TaskJobId> queryJobIds(String sql, Object... args) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            Jdbc.bind(ps, 1, args);
            try (ResultSet rs = ps.executeQuery()) {
                List<TaskJobId> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(TaskJobId.of(Jdbc.uuid(rs, 1), rs.getInt(2)));
                }
                return out;
            }
        } catch (SQLException e) {
            throw new LedgerException("query", e);
        }
    }

    private static BackgroundTask map(ResultSet rs) throws SQLException {
        return new BackgroundTask(
                Jdbc.uuid(rs, 1),
                TaskKind.valueOf(rs.getString(2)),
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
                Jdbc.uuid(rs, 22));
    }

    private static Instant instant(ResultSet rs, int col) throws SQLException {
        OffsetDateTime t = Jdbc.offsetDateTime(rs, col);
        return t == null ? null : t.toInstant();
    }

    /**
     * A row and its change sequence: each write of a row takes a larger one, in commit order for that
     * row (V4 trigger).
     */
    public record Versioned(long seq, BackgroundTask task) {
    }

    /** A claimed row and the lease of the execution that claimed it (R7). */
    public record Claim(BackgroundTask task, Lease lease) {
    }
}
