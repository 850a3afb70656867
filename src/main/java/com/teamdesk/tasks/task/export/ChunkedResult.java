package com.teamdesk.tasks.task.export;

import com.teamdesk.tasks.task.JdbcTaskLedger;
import com.teamdesk.tasks.task.Lease;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * The export's CSV while it is written (R13, issue 16): cuts the bytes into chunks of a fixed size,
 * and hashes (SHA-256) and stores each under the lease ({@link JdbcTaskLedger#writeResultChunk}).
 * With an executor, a full chunk is stored on one of its threads while the export fills the next
 * one; the hand-off waits for the previous store first, so at most one store is in flight and the
 * heap holds two chunk buffers at most. A store's failure ({@code LeaseLost}, {@code RunTimedOut}, an
 * SQL error) is rethrown on the export's thread at the next hand-off or at {@link #finish()}.
 *
 * <p>Not thread-safe; one instance per execution. {@link #close()} without {@link #finish()} waits
 * for the store in flight (so nothing is written after the execution returns) and reports nothing.
 */
final class ChunkedResult extends OutputStream {

    /** What was stored: the CSV's size in bytes and its hex SHA-256. */
    record Stored(long size, String sha256, int chunks) {
    }

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
        this.filling = new byte[this.chunkBytes];
        try {
            this.sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }

    @Override
    public void write(int b) throws IOException {
        if (length == chunkBytes) {
            handOff();
        }
        filling[length++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            if (length == chunkBytes) {
                handOff();
            }
            int n = Math.min(len, chunkBytes - length);
            System.arraycopy(b, off, filling, length, n);
            length += n;
            off += n;
            len -= n;
        }
    }

    /**
     * Stores the last chunk and waits until every chunk is committed.
     *
     * @return the CSV's size, SHA-256 and number of chunks
     * @throws IOException when waiting was interrupted; a store's own failure is rethrown as it was
     */
    Stored finish() throws IOException {
        if (stored == null) {
            if (length > 0 || seq == 0) {
                handOff();
            }
            awaitStoring();
            stored = new Stored(size, HexFormat.of().formatHex(sha.digest()), seq);
        }
        return stored;
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
