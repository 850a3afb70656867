package com.teamdesk.tasks.task.export;

import com.teamdesk.tasks.task.spi.Lease;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * The export's CSV while it is written (R13, issue 16): cuts the bytes into chunks of a fixed size,
 * and hashes (SHA-256) and stores each under the lease ({@link ExportResultStore#writeResultChunk}).
 * With an executor, a full chunk is stored on one of its threads while the export fills the next
 * one; the hand-off waits for the previous store first, so at most one store is in flight and the
 * heap holds two chunks at most.
 *
 * <p>A chunk is never one array: it is a list of segments of at most {@value #SEGMENT_BYTES} bytes, hashed
 * one after the other and streamed into the chunk's statement with its exact length, so no array reaches
 * G1's humongous size (half a region: 512 KiB at {@code -Xmx512m}; 2 MiB chunk buffers cost ~25 ms of
 * humongous-allocation pauses per 50k export, issue 16). The segments of a stored chunk are reused for
 * the next ones. The first segment starts at {@value #FIRST_BUFFER_BYTES} bytes and doubles up to the
 * segment size as the CSV grows, so a small export never allocates a whole segment (issue 16: a 2 MiB
 * buffer per 0-row export, zeroed and allocated in the old generation, cost ~0.8 ms of garbage collection
 * per task in P2's engine run, against ~1.2 ms of worker CPU).
 * A store's failure ({@code LeaseLost}, {@code RunTimedOut}, an SQL error) is rethrown on the export's
 * thread at the next hand-off or at {@link #finish()}.
 *
 * <p>The last chunk is not stored on its own: {@link #complete} stores it with the export's
 * lease-checked completion, in the same statement ({@link ExportResultStore#completeExport}), so an
 * export of at most one chunk writes its result with one statement and one commit.
 *
 * <p>Not thread-safe; one instance per execution. {@link #close()} without {@link #complete} waits
 * for the store in flight (so nothing is written after the execution returns) and reports nothing.
 *
 * <p>Over 300 lines: one buffer (segments reused across chunks, one store in flight, the digest in chunk
 * order) whose invariants span all of it.
 */
final class ChunkedResult extends OutputStream {

    /** What was stored: the CSV's size in bytes and its hex SHA-256. */
    record Stored(long size, String sha256, int chunks) {
    }

    /** Size of the first buffer when the segment size is larger: enough for a header and a few rows. */
    static final int FIRST_BUFFER_BYTES = 8 * 1024;

    /** Largest array of a chunk: a quarter of a 1 MiB G1 region, well below the humongous half. */
    static final int SEGMENT_BYTES = 256 * 1024;

    /** One chunk's bytes: full segments, then the first {@code lastLength} bytes of the last one. */
    private record Chunk(List<byte[]> segments, int segmentBytes, int lastLength, int length) {
        /** Feeds the bytes to {@code sha} in order. */
        void hashInto(MessageDigest sha) {
            for (int i = 0; i < segments.size(); i++) {
                sha.update(segments.get(i), 0, i < segments.size() - 1 ? segmentBytes : lastLength);
            }
        }

        /** @return the bytes as one stream, exactly {@link #length} of them */
        InputStream stream() {
            List<InputStream> parts = new ArrayList<>(segments.size());
            for (int i = 0; i < segments.size(); i++) {
                parts.add(new ByteArrayInputStream(segments.get(i), 0, i < segments.size() - 1 ? segmentBytes : lastLength));
            }
            return new SequenceInputStream(Collections.enumeration(parts));
        }
    }

    private final ExportResultStore store;
    private final Lease lease;
    private final Clock clock;
    private final ExecutorService executor;
    private final MessageDigest sha;
    private final int chunkBytes;
    private final int segmentBytes;
    /** The chunk being filled: its full segments (each {@link #segmentBytes}), then {@link #filling}. */
    private final List<byte[]> full = new ArrayList<>();
    private byte[] filling;
    private int length;
    /** How far {@link #filling} may be filled: its end, or where the chunk ends. */
    private int limit;
    /** Segments of stored chunks, for the next ones. */
    private final ArrayDeque<byte[]> free = new ArrayDeque<>();
    /** The chunk whose store is in flight; its segments are free once the store is done. */
    private Chunk inFlight;
    private int largestArray;
    private int seq;
    private long size;
    private Future<?> storing;
    private Stored stored;

    /**
     * @param chunkBytes bytes per chunk (the last one may be shorter), at least 1
     * @param executor   where chunks are stored, or null to store them on the calling thread
     */
    ChunkedResult(ExportResultStore store, Lease lease, Clock clock, int chunkBytes, ExecutorService executor) {
        this(store, lease, clock, chunkBytes, SEGMENT_BYTES, executor);
    }

    /** {@link #ChunkedResult(ExportResultStore, Lease, Clock, int, ExecutorService)} with segments of {@code segmentBytes} (tests). */
    ChunkedResult(ExportResultStore store, Lease lease, Clock clock, int chunkBytes, int segmentBytes, ExecutorService executor) {
        this.store = store;
        this.lease = lease;
        this.clock = clock;
        this.executor = executor;
        this.chunkBytes = Math.max(1, chunkBytes);
        this.segmentBytes = Math.max(1, Math.min(this.chunkBytes, segmentBytes));
        this.filling = allocate(Math.min(this.segmentBytes, FIRST_BUFFER_BYTES));
        this.limit = filling.length;
        try {
            this.sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }

    @Override
    public void write(int b) throws IOException {
        if (length == limit) {
            makeRoom();
        }
        filling[length++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            if (length == limit) {
                makeRoom();
            }
            int n = Math.min(len, limit - length);
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
            // The chunk holds at least one byte unless nothing was written at all: a full chunk is handed
            // off only when a further byte comes. An empty CSV is stored as one empty chunk.
            Chunk last = current();
            last.hashInto(sha);
            size += last.length();
            stored = new Stored(size, HexFormat.of().formatHex(sha.digest()), seq + 1);
        }
        return stored;
    }

    /**
     * R13 final write: {@link #finish()} if not done yet, then the lease-checked completion of the
     * export, which stores the last chunk in the same statement ({@link ExportResultStore#completeExport}).
     *
     * @param summary   the result's summary for people
     * @param expiresAt when the CSV is gone (now + retention)
     * @param now       the completion's time (the clock's)
     * @throws com.teamdesk.tasks.task.spi.LeaseLost   when the lease no longer holds (nothing stored)
     * @throws com.teamdesk.tasks.task.spi.RunTimedOut past the run timeout (R26; nothing stored)
     * @throws IOException                         as {@link #finish()}
     */
    void complete(String summary, Instant expiresAt, Instant now) throws IOException {
        Stored s = finish();
        Chunk last = current();
        store.completeExport(lease, seq, last.stream(), last.length(), s.size(), s.sha256(), summary, expiresAt, now);
    }

    /** @return the largest array this result has allocated, in bytes (at most the segment size) */
    int largestArray() {
        return largestArray;
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
        full.clear();
        free.clear();
        inFlight = null;
    }

    /** @return the chunk being filled, as it is now */
    private Chunk current() {
        List<byte[]> segments = new ArrayList<>(full);
        segments.add(filling);
        return new Chunk(segments, segmentBytes, length, full.size() * segmentBytes + length);
    }

    /** Sets {@link #limit} for the current {@link #filling}: its end, or where the chunk ends. */
    private void setLimit() {
        limit = Math.min(filling.length, chunkBytes - full.size() * segmentBytes);
    }

    /**
     * Makes room for at least one byte when {@link #filling} is filled up to {@link #limit}: a full chunk is
     * handed off; a full first buffer grows (doubling) up to the segment size; a full segment is followed by
     * a new (or reused) one.
     */
    private void makeRoom() throws IOException {
        if (full.size() * segmentBytes + length >= chunkBytes) {
            handOff();
        } else if (filling.length < segmentBytes) {
            byte[] grown = allocate((int) Math.min(segmentBytes, 2L * filling.length));
            System.arraycopy(filling, 0, grown, 0, length);
            filling = grown;
        } else {
            full.add(filling);
            filling = segment();
            length = 0;
        }
        setLimit();
    }

    private void handOff() throws IOException {
        Chunk chunk = current();
        size += chunk.length();
        awaitStoring();
        int s = seq++;
        // The digest is updated by the store, in chunk order: stores run one at a time, each after the
        // previous one's Future completed (happens-before), so the hashing leaves the export's thread too.
        Runnable write = () -> {
            chunk.hashInto(sha);
            this.store.writeResultChunk(lease, s, chunk.stream(), chunk.length(), clock.instant());
        };
        full.clear();
        if (executor == null) {
            write.run();
            recycle(chunk);
        } else {
            storing = executor.submit(write);
            inFlight = chunk;
        }
        filling = segment();
        length = 0;
    }

    /** @return a free segment of {@link #segmentBytes}, reused when one is */
    private byte[] segment() {
        byte[] s = free.poll();
        return s != null ? s : allocate(segmentBytes);
    }

    private byte[] allocate(int bytes) {
        largestArray = Math.max(largestArray, bytes);
        return new byte[bytes];
    }

    /** Keeps a stored chunk's whole segments for the next chunks (a smaller first buffer is left to the GC). */
    private void recycle(Chunk chunk) {
        for (byte[] s : chunk.segments()) {
            if (s.length == segmentBytes) {
                free.push(s);
            }
        }
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
        Chunk done = inFlight;
        inFlight = null;
        if (done != null) {
            recycle(done);
        }
    }
}
