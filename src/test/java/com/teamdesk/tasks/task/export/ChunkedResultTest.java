package com.teamdesk.tasks.task.export;

import com.teamdesk.tasks.task.spi.Lease;
import com.teamdesk.tasks.task.spi.LeaseLost;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How {@link ChunkedResult} hands its chunks to the ledger (issue 16): every chunk but the last is stored
 * on its own, in order, and the last one goes with the completion, so an export of at most one chunk makes
 * no chunk INSERT of its own; size and SHA-256 cover every byte. The ledger's SQL is proved by
 * {@code JdbcTaskLedgerTest}; here a recording store stands in for it.
 */
class ChunkedResultTest {
    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private static final Lease LEASE = new Lease(UUID.randomUUID(), 0, UUID.randomUUID(), 1, null);

    private final RecordingLedger ledger = new RecordingLedger();
    private final ExecutorService stores = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        stores.shutdownNow();
    }

    @Test
    void aCsvOfOneChunkIsStoredOnlyByTheCompletion() throws Exception {
        byte[] csv = "\uFEFFid,title\r\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try (ChunkedResult out = new ChunkedResult(ledger, LEASE, Clock.fixed(NOW, ZoneOffset.UTC), 1024, stores)) {
            out.write(csv);
            ChunkedResult.Stored stored = out.finish();
            assertEquals(new ChunkedResult.Stored(csv.length, sha256(csv), 1), stored);
            out.complete("0 tickets exported", NOW.plusSeconds(86400), NOW);
        }
        assertEquals(List.of(), ledger.chunks, "no chunk INSERT of its own");
        assertEquals(List.of("complete seq=0 size=" + csv.length + " sha=" + sha256(csv)), ledger.completions);
        assertArrayEquals(csv, ledger.stored());
    }

    @Test
    void everyChunkButTheLastIsStoredInOrderBeforeTheCompletion() throws Exception {
        for (int length : new int[] {1, 9, 10, 11, 30, 31}) {
            RecordingLedger recording = new RecordingLedger();
            byte[] csv = new byte[length];
            for (int i = 0; i < length; i++) {
                csv[i] = (byte) ('a' + i % 26);
            }
            try (ChunkedResult out = new ChunkedResult(recording, LEASE, Clock.fixed(NOW, ZoneOffset.UTC), 10, stores)) {
                for (int i = 0; i < length; i += 7) {
                    out.write(csv, i, Math.min(7, length - i));
                }
                out.complete("s", NOW, NOW);
            }
            int chunks = (length + 9) / 10;
            assertEquals(chunks - 1, recording.chunks.size(), length + " bytes: chunks stored on their own");
            for (int seq = 0; seq < chunks - 1; seq++) {
                assertEquals(seq, recording.chunks.get(seq).seq, "in order");
                assertEquals(10, recording.chunks.get(seq).bytes.length, "full chunks");
            }
            assertEquals(List.of("complete seq=" + (chunks - 1) + " size=" + length + " sha=" + sha256(csv)),
                    recording.completions, length + " bytes: the last chunk with the completion");
            assertArrayEquals(csv, recording.stored());
        }
    }

    @Test
    void aSmallCsvNeverAllocatesAWholeChunkAndAGrowingBufferKeepsEveryByte() throws Exception {
        int chunk = 3 * ChunkedResult.FIRST_BUFFER_BYTES + 5; // not a multiple of the doubling steps
        RecordingLedger small = new RecordingLedger();
        byte[] header = "\uFEFFid,title\r\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try (ChunkedResult out = new ChunkedResult(small, LEASE, Clock.fixed(NOW, ZoneOffset.UTC), chunk, stores)) {
            out.write(header);
            out.complete("0 tickets exported", NOW, NOW);
            assertEquals(ChunkedResult.FIRST_BUFFER_BYTES, out.largestArray(),
                    "issue 16: a 0-row export's CSV lives in the first, small buffer, not in a chunk-sized one");
        }
        assertArrayEquals(header, small.stored());

        for (int length : new int[] {ChunkedResult.FIRST_BUFFER_BYTES, ChunkedResult.FIRST_BUFFER_BYTES + 1, chunk,
                chunk + 1, 2 * chunk + ChunkedResult.FIRST_BUFFER_BYTES * 2 + 7}) {
            RecordingLedger recording = new RecordingLedger();
            byte[] csv = new byte[length];
            for (int i = 0; i < length; i++) {
                csv[i] = (byte) (i * 31 + i / 251);
            }
            try (ChunkedResult out = new ChunkedResult(recording, LEASE, Clock.fixed(NOW, ZoneOffset.UTC), chunk, stores)) {
                int i = 0;
                while (i < length) { // single bytes and runs of 1000 crossing every growth and chunk boundary
                    if (i % 3 == 0) {
                        out.write(csv[i++]);
                    } else {
                        int n = Math.min(1000, length - i);
                        out.write(csv, i, n);
                        i += n;
                    }
                }
                out.complete("s", NOW, NOW);
            }
            int chunks = (length + chunk - 1) / chunk;
            assertEquals(chunks - 1, recording.chunks.size(), length + " bytes: chunks stored on their own");
            recording.chunks.forEach(c -> assertEquals(chunk, c.bytes().length, length + " bytes: full chunks"));
            assertEquals(List.of("complete seq=" + (chunks - 1) + " size=" + length + " sha=" + sha256(csv)),
                    recording.completions);
            assertArrayEquals(csv, recording.stored(), length + " bytes");
        }
    }

    @Test
    void aLostLeaseAtCompletionIsThrownAndNothingIsLeftInFlight() throws Exception {
        RecordingLedger refusing = new RecordingLedger() {
            @Override
            public void completeExport(Lease lease, int lastSeq, InputStream lastChunk, int lastLength, long size,
                    String sha256, String summary, Instant expiresAt, Instant now) {
                throw new LeaseLost(lease, "result write");
            }
        };
        try (ChunkedResult out = new ChunkedResult(refusing, LEASE, Clock.fixed(NOW, ZoneOffset.UTC), 4, stores)) {
            out.write(new byte[9]);
            assertThrows(LeaseLost.class, () -> out.complete("s", NOW, NOW));
        }
        assertEquals(2, refusing.chunks.size(), "the two full chunks; the last went nowhere");
        assertTrue(refusing.completions.isEmpty());
    }

    /**
     * Issue 16: a chunk is a list of segments, never one array of the chunk's size (2 MiB would be a
     * humongous allocation for G1 at -Xmx512m): a 5 MB CSV in 2 MiB chunks allocates no array larger
     * than a segment.
     */
    @Test
    void noArrayLargerThanASegmentForChunksOfTwoMebibytes() throws Exception {
        int chunk = 2 * 1024 * 1024;
        byte[] csv = new byte[5_000_000];
        for (int i = 0; i < csv.length; i++) {
            csv[i] = (byte) (i * 7 + i / 1000);
        }
        RecordingLedger recording = new RecordingLedger();
        try (ChunkedResult out = new ChunkedResult(recording, LEASE, Clock.fixed(NOW, ZoneOffset.UTC), chunk, stores)) {
            for (int i = 0; i < csv.length; i += 600) { // about a row at a time, as CopyCsv writes cells
                out.write(csv, i, Math.min(600, csv.length - i));
            }
            out.complete("s", NOW, NOW);
            assertEquals(ChunkedResult.SEGMENT_BYTES, out.largestArray(), "no array above a segment");
            assertTrue(ChunkedResult.SEGMENT_BYTES < 512 * 1024, "below half a 1 MiB G1 region");
        }
        assertEquals(2, recording.chunks.size());
        recording.chunks.forEach(c -> assertEquals(chunk, c.bytes().length));
        assertEquals(List.of("complete seq=2 size=" + csv.length + " sha=" + sha256(csv)), recording.completions);
        assertArrayEquals(csv, recording.stored());
    }

    /**
     * Segment boundaries inside UTF-8 characters, chunk sizes that are and are not a multiple of the
     * segment size, CSVs that end exactly at a segment or a chunk boundary, single bytes and runs crossing
     * them: the stored bytes, the size and the SHA-256 are those of the CSV, with and without a store thread.
     */
    @Test
    void segmentBoundariesInsideCharactersAndAtExactChunkSizesKeepEveryByte() throws Exception {
        byte[] unit = "é中🙂,\"x\"\r\n".getBytes(java.nio.charset.StandardCharsets.UTF_8); // 15 bytes: 2, 3, 4 per character
        int segment = 7;
        for (int chunk : new int[] {21, 20, 7, 6, 100}) {
            for (int length : new int[] {0, 1, 6, 7, 8, 14, 20, 21, 22, 42, 63, 64, 300, 315}) {
                byte[] csv = new byte[length];
                for (int i = 0; i < length; i++) {
                    csv[i] = unit[i % unit.length];
                }
                for (ExecutorService executor : java.util.Arrays.asList(stores, null)) {
                    RecordingLedger recording = new RecordingLedger();
                    try (ChunkedResult out = new ChunkedResult(recording, LEASE, Clock.fixed(NOW, ZoneOffset.UTC), chunk,
                            segment, executor)) {
                        int i = 0;
                        int step = 1;
                        while (i < length) {
                            if (step % 2 == 1) {
                                out.write(csv[i++]);
                            } else {
                                int n = Math.min(step, length - i);
                                out.write(csv, i, n);
                                i += n;
                            }
                            step = step % 11 + 1;
                        }
                        out.complete("s", NOW, NOW);
                        assertTrue(out.largestArray() <= Math.min(segment, chunk), "no array above a segment");
                    }
                    String what = length + " bytes in chunks of " + chunk + (executor == null ? " on one thread" : "");
                    int chunks = Math.max(1, (length + chunk - 1) / chunk);
                    assertEquals(chunks - 1, recording.chunks.size(), what + ": chunks stored on their own");
                    recording.chunks.forEach(c -> assertEquals(chunk, c.bytes().length, what + ": full chunks"));
                    assertEquals(List.of("complete seq=" + (chunks - 1) + " size=" + length + " sha=" + sha256(csv)),
                            recording.completions, what);
                    assertArrayEquals(csv, recording.stored(), what);
                }
            }
        }
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    /** A ledger that keeps what it is asked to store, in memory. */
    private static class RecordingLedger extends ExportResultStore {
        record Chunk(int seq, byte[] bytes) {
        }

        final List<Chunk> chunks = java.util.Collections.synchronizedList(new ArrayList<>());
        final List<String> completions = new ArrayList<>();
        private byte[] last = new byte[0];

        @Override
        public void writeResultChunk(Lease lease, int seq, InputStream bytes, int length, Instant now) {
            chunks.add(new Chunk(seq, exactly(bytes, length)));
        }

        @Override
        public void completeExport(Lease lease, int lastSeq, InputStream lastChunk, int lastLength, long size,
                String sha256, String summary, Instant expiresAt, Instant now) {
            last = exactly(lastChunk, lastLength);
            completions.add("complete seq=" + lastSeq + " size=" + size + " sha=" + sha256);
        }

        /** Reads the stream as pgjdbc does with setBinaryStream's length, and checks that it has exactly that. */
        private static byte[] exactly(InputStream in, int length) {
            try {
                byte[] b = in.readNBytes(length);
                assertEquals(length, b.length, "the stream holds the length it is stored with");
                assertEquals(-1, in.read(), "and nothing more");
                return b;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        byte[] stored() {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            chunks.forEach(c -> all.writeBytes(c.bytes()));
            all.writeBytes(last);
            return all.toByteArray();
        }
    }
}
