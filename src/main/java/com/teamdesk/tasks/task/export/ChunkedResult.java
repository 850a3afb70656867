package com.teamdesk.tasks.task.export;

import com.teamdesk.tasks.task.JdbcTaskLedger;
import com.teamdesk.tasks.task.Lease;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * The export's CSV while it is written (R13, issue 16): cuts the bytes into chunks of a fixed size,
 * and hashes (SHA-256) and stores each under the lease ({@link JdbcTaskLedger#writeResultChunk}).
 * With an executor, a full chunk is stored on one of its threads while the export fills the next
 * one; the hand-off waits for the previous store first, so at most one store is in flight and the
 * heap holds two chunk buffers at most. The first buffer starts at {@value #FIRST_BUFFER_BYTES} bytes and
 * doubles up to the chunk size as the CSV grows, so a small export never allocates a whole chunk (issue 16:
 * a 2 MiB buffer per 0-row export, zeroed and, larger than a G1 region, allocated in the old generation,
 * cost ~0.8 ms of garbage collection per task in P2's engine run, against ~1.2 ms of worker CPU).
 * A store's failure ({@code LeaseLost}, {@code RunTimedOut}, an SQL error) is rethrown on the export's
 * thread at the next hand-off or at {@link #finish()}.
 *
 * <p>The last chunk is not stored on its own: {@link #complete} stores it with the export's
 * lease-checked completion, in the same statement ({@link JdbcTaskLedger#completeExport}), so an
 * export of at most one chunk writes its result with one statement and one commit.
 *
 * <p>Not thread-safe; one instance per execution. {@link #close()} without {@link #complete} waits
 * for the store in flight (so nothing is written after the execution returns) and reports nothing.
 */
final class ChunkedResult extends OutputStream {

    /** What was stored: the CSV's size in bytes and its hex SHA-256. */
    record Stored(long size, String sha256, int chunks) {
    }

    /** Size of the first buffer when the chunk size is larger: enough for a header and a few rows. */
    static final int FIRST_BUFFER_BYTES = 8 * 1024;

    private final JdbcTaskLedger ledger;
    private final Lease lease;
    private final Clock clock;
    private final ExecutorService executor;
    private final MessageDigest sha;
    private final int chunkBytes;
    private byte[] filling;
    private byte[] spare;
    private int length;
    private int seq;
    private long size;
    private Future<?> storing;
    private Stored stored;

    /**
     * @param chunkBytes bytes per chunk (the last one may be shorter), at least 1
     * @param executor   where chunks are stored, or null to store them on the calling thread
     */
    ChunkedResult(JdbcTaskLedger ledger, Lease lease, Clock clock, int chunkBytes, ExecutorService executor) {
        this.ledger = ledger;
        this.lease = lease;
        this.clock = clock;
        this.executor = executor;
        this.chunkBytes = Math.max(1, chunkBytes);
        this.filling = new byte[Math.min(this.chunkBytes, FIRST_BUFFER_BYTES)];
        try {
            this.sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }

    @Override
    public void write(int b) throws IOException {
        makeRoom();
        filling[length++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            makeRoom();
            int n = Math.min(len, filling.length - length);
            System.arraycopy(b, off, filling, length, n);
            length += n;
            off += n;
            len -= n;
        }
    }

    /**
     * Ends the CSV: waits until every chunk before the last is committed and hashes the last one, which
     * stays in memory for {@link #complete}. Idempotent; nothing may be written after it.
     *
     * @return the CSV's size, SHA-256 and number of chunks (the last included)
     * @throws IOException when waiting was interrupted; a store's own failure is rethrown as it was
     */
    Stored finish() throws IOException {
        if (stored == null) {
            awaitStoring();
            // The buffer holds at least one byte unless nothing was written at all: a full chunk is handed
            // off only when a further byte comes. An empty CSV is stored as one empty chunk.
            sha.update(filling, 0, length);
            size += length;
            stored = new Stored(size, HexFormat.of().formatHex(sha.digest()), seq + 1);
        }
        return stored;
    }

    /**
     * R13 final write: {@link #finish()} if not done yet, then the lease-checked completion of the
     * export, which stores the last chunk in the same statement ({@link JdbcTaskLedger#completeExport}).
     *
     * @param summary   the result's summary for people
     * @param expiresAt when the CSV is gone (now + retention)
     * @param now       the completion's time (the clock's)
     * @throws com.teamdesk.tasks.task.LeaseLost   when the lease no longer holds (nothing stored)
     * @throws com.teamdesk.tasks.task.RunTimedOut past the run timeout (R26; nothing stored)
     * @throws IOException                         as {@link #finish()}
     */
    void complete(String summary, Instant expiresAt, Instant now) throws IOException {
        Stored s = finish();
        ledger.completeExport(lease, seq, filling, length, s.size(), s.sha256(), summary, expiresAt, now);
    }

    /** {@link #awaitStoreAndDrop()}: leaving the export's try-with-resources. */
    @Override
    public void close() {
        awaitStoreAndDrop();
    }

    /**
     * Waits for a store in flight, ignoring its outcome, and drops the buffers; called on failure before
     * the execution's chunks are deleted, so that no store is in flight then. Idempotent.
     */
    public void awaitStoreAndDrop() {
        Future<?> f = storing;
        storing = null;
        if (f != null) {
            try {
                f.get();
            } catch (ExecutionException e) {
                // the export already failed or returns; the chunk is left to the sweep
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        filling = null;
        spare = null;
    }

    /** Makes room for at least one byte: a full buffer grows (doubling) up to the chunk size, a full chunk is handed off. */
    private void makeRoom() throws IOException {
        if (length < filling.length) {
            return;
        }
        if (length < chunkBytes) {
            filling = Arrays.copyOf(filling, (int) Math.min(chunkBytes, 2L * filling.length));
        } else {
            handOff();
        }
    }

    private void handOff() throws IOException {
        size += length;
        awaitStoring();
        byte[] chunk = filling;
        int n = length;
        int s = seq++;
        // The digest is updated by the store, in chunk order: stores run one at a time, each after the
        // previous one's Future completed (happens-before), so the hashing leaves the export's thread too.
        Runnable store = () -> {
            sha.update(chunk, 0, n);
            ledger.writeResultChunk(lease, s, chunk, n, clock.instant());
        };
        if (executor == null) {
            store.run();
        } else {
            storing = executor.submit(store);
        }
        filling = spare != null ? spare : new byte[chunkBytes];
        spare = chunk;
        length = 0;
    }

    private void awaitStoring() throws IOException {
        Future<?> f = storing;
        if (f == null) {
            return;
        }
        storing = null;
        try {
            f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while a result chunk was stored");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IOException("result chunk store failed", cause);
        }
    }
}
