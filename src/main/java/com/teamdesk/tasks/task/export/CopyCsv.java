package com.teamdesk.tasks.task.export;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.UUID;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;

/**
 * Writes the export's CSV (R13) with bytes PostgreSQL produces: each keyset batch is one
 * {@code COPY (SELECT ...) TO STDOUT (FORMAT binary)} whose SELECT builds the text cells already
 * neutralised, quoted and joined ({@link #COLUMNS}); Java only copies those bytes to the output and
 * puts the two timestamps between them ({@link CsvTimestamps}). The result is byte for byte what
 * the Commons CSV writer of issue 3 produced (RFC 4180, CRLF, BOM, header; proved by
 * {@code CopyCsvIdentityTest}).
 *
 * <p>Why binary and not {@code FORMAT csv}: PostgreSQL's CSV quoting differs from the one our files
 * have always had (Commons CSV also quotes a cell that starts with a character up to {@code #} or
 * ends with one up to a space, and never quotes an empty cell), so the SELECT applies the quoting
 * itself and the binary format hands its text over untouched.
 *
 * <p>Not thread-safe; one instance per export. Memory: the unparsed tail of one COPY message.
 */
final class CopyCsv {
    /** Header row, in column order. */
    static final String[] HEADER = {"id", "title", "status", "priority", "assignee", "requester",
        "created_at", "updated_at", "version", "body"};

    /**
     * The select list of a batch, over {@code t} (ticket), {@code a} (assignee) and {@code r}
     * (requester): the cells before the timestamps (ending in a comma), created_at, updated_at, the
     * cells after them (starting with a comma, ending with CRLF), and the id for the keyset cursor.
     */
    static final String COLUMNS = "t.id::text || ',' || " + cell("t.title") + " || ',' || t.status || ',' || t.priority"
            + " || ',' || " + cell("a.username") + " || ',' || " + cell("r.username") + " || ',',"
            + " t.created_at, t.updated_at,"
            + " ',' || t.version::text || ',' || " + cell("t.body") + " || E'\\r\\n',"
            + " t.id";

    private static final int FIELDS = 5;
    private static final byte[] SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0};
    /** Microseconds from 1970-01-01 to 2000-01-01, PostgreSQL's timestamp epoch. */
    private static final long PG_EPOCH_MICROS = 946_684_800_000_000L;
    /** What pgjdbc's {@code getTimestamp} gives for {@code infinity} / {@code -infinity} (PGStatement), in ms. */
    private static final long PGJDBC_INFINITY_MS = 9223372036825200000L;
    private static final long PGJDBC_MINUS_INFINITY_MS = -9223372036832400000L;

    private final OutputStream out;
    private final CsvTimestamps times;
    private final byte[] stamp = new byte[CsvTimestamps.MAX_FAST_LENGTH];
    private final int[] start = new int[FIELDS];
    private final int[] length = new int[FIELDS];
    private byte[] pending = new byte[64 * 1024];
    private int pendingLength;
    private boolean headerRead;
    private boolean ended;

    /**
     * Starts a CSV: writes the BOM and the header row.
     *
     * @param out  where the CSV bytes go (UTF-8); not closed here
     * @param zone zone of the timestamps
     * @throws IOException when the stream fails
     */
    CopyCsv(OutputStream out, ZoneId zone) throws IOException {
        this.out = out;
        this.times = new CsvTimestamps(zone);
        out.write(("\uFEFF" + String.join(",", HEADER) + "\r\n").getBytes(StandardCharsets.UTF_8));
    }

    /** Where a batch ended: its row count and the keyset cursor of its last row (null when empty). */
    record Batch(int rows, Instant lastCreatedAt, UUID lastId) {
    }

    /**
     * Runs one batch's COPY on {@code c} and writes its rows.
     *
     * @param query    the batch's SELECT of {@link #COLUMNS}, arguments inlined (COPY takes no parameters)
     * @param afterRow called after each row is written; what it throws ends the batch (the rest of the
     *                 COPY is read and discarded) and propagates
     * @throws SQLException when PostgreSQL refuses the statement
     * @throws IOException  when the output fails
     */
    Batch copy(Connection c, String query, Runnable afterRow) throws SQLException, IOException {
        CopyOut copy = c.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY (" + query + ") TO STDOUT (FORMAT binary)");
        pendingLength = 0;
        headerRead = false;
        ended = false;
        Batch batch = new Batch(0, null, null);
        try {
            byte[] message;
            while ((message = copy.readFromCopy()) != null) {
                append(message);
                batch = parse(batch, afterRow);
            }
        } catch (RuntimeException | IOException | SQLException e) {
            abort(copy, e);
            throw e;
        }
        if (!ended || pendingLength != 0) {
            throw new IllegalStateException("COPY ended without its trailer (" + pendingLength + " bytes left)");
        }
        return batch;
    }

    /**
     * Reads the rest of an interrupted COPY and throws it away, so the connection goes back to the
     * pool in step with the server. Not {@code cancelCopy()}: a cancel request is asynchronous and left
     * the next statement on the connection without its answer (CopyCsvIdentityTest); a batch is at most
     * {@code batch-size} rows, so reading them out is cheap.
     */
    private static void abort(CopyOut copy, Exception e) {
        try {
            while (copy.isActive() && copy.readFromCopy() != null) {
                // discard
            }
        } catch (SQLException drain) {
            e.addSuppressed(drain);
        }
    }

    private void append(byte[] message) {
        if (pendingLength + message.length > pending.length) {
            pending = Arrays.copyOf(pending, Math.max(pending.length * 2, pendingLength + message.length));
        }
        System.arraycopy(message, 0, pending, pendingLength, message.length);
        pendingLength += message.length;
    }

    /** Writes every complete row in {@link #pending}, keeps the incomplete rest. */
    private Batch parse(Batch batch, Runnable afterRow) throws IOException {
        int p = 0;
        if (!headerRead) {
            if (pendingLength < SIGNATURE.length + 8) {
                return batch;
            }
            if (!Arrays.equals(pending, 0, SIGNATURE.length, SIGNATURE, 0, SIGNATURE.length)) {
                throw new IllegalStateException("not a binary COPY stream");
            }
            int extension = int32(SIGNATURE.length + 4);
            if (pendingLength < SIGNATURE.length + 8 + extension) {
                return batch;
            }
            p = SIGNATURE.length + 8 + extension;
            headerRead = true;
        }
        int rows = batch.rows();
        long lastCreated = 0;
        long idHigh = 0;
        long idLow = 0;
        boolean any = false;
        while (!ended && pendingLength - p >= 2) {
            int fields = (short) ((pending[p] & 0xFF) << 8 | pending[p + 1] & 0xFF);
            if (fields == -1) {
                ended = true;
                p += 2;
                break;
            }
            if (fields != FIELDS) {
                throw new IllegalStateException("COPY row of " + fields + " fields, expected " + FIELDS);
            }
            int q = p + 2;
            boolean complete = true;
            for (int f = 0; f < FIELDS; f++) {
                if (pendingLength - q < 4) {
                    complete = false;
                    break;
                }
                int n = int32(q);
                q += 4;
                if (n < 0) {
                    throw new IllegalStateException("NULL in COPY field " + f);
                }
                if (pendingLength - q < n) {
                    complete = false;
                    break;
                }
                start[f] = q;
                length[f] = n;
                q += n;
            }
            if (!complete) {
                break;
            }
            out.write(pending, start[0], length[0]);
            long created = int64(start[1]);
            timestamp(created);
            out.write(',');
            timestamp(int64(start[2]));
            out.write(pending, start[3], length[3]);
            lastCreated = created;
            idHigh = int64(start[4]);
            idLow = int64(start[4] + 8);
            any = true;
            rows++;
            p = q;
            afterRow.run();
        }
        System.arraycopy(pending, p, pending, 0, pendingLength - p);
        pendingLength -= p;
        return any ? new Batch(rows, instant(lastCreated), new UUID(idHigh, idLow)) : batch;
    }

    /** Writes a {@code timestamptz} (microseconds since 2000-01-01 UTC) truncated to the second. */
    private void timestamp(long pgMicros) throws IOException {
        long second = instant(pgMicros).getEpochSecond();
        int end = times.write(second, stamp, 0);
        if (end >= 0) {
            out.write(stamp, 0, end);
        } else {
            out.write(times.slow(second));
        }
    }

    /** @return the instant of a binary {@code timestamptz}; the infinities as pgjdbc reads them */
    static Instant instant(long pgMicros) {
        if (pgMicros == Long.MAX_VALUE) {
            return Instant.ofEpochMilli(PGJDBC_INFINITY_MS);
        }
        if (pgMicros == Long.MIN_VALUE) {
            return Instant.ofEpochMilli(PGJDBC_MINUS_INFINITY_MS);
        }
        long micros = pgMicros + PG_EPOCH_MICROS;
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
    }

    private int int32(int p) {
        return (pending[p] & 0xFF) << 24 | (pending[p + 1] & 0xFF) << 16 | (pending[p + 2] & 0xFF) << 8
                | pending[p + 3] & 0xFF;
    }

    private long int64(int p) {
        return (long) int32(p) << 32 | int32(p + 4) & 0xFFFFFFFFL;
    }

    /**
     * A text cell as SQL: NULL and empty give nothing; a value starting with {@code = + - @}, tab or
     * CR gets a leading apostrophe (formula neutralisation, OWASP "CSV injection"); then the cell is
     * quoted (quotes doubled) when it starts with a character up to {@code #}, holds a comma, quote,
     * CR or LF, or ends with a character up to a space — the rules of Commons CSV's minimal quoting
     * that the files had before. First and last characters are compared as code points, which for
     * these ASCII limits is the same as Java's UTF-16 units.
     */
    private static String cell(String x) {
        String special = "strpos(" + x + ", ',') > 0 OR strpos(" + x + ", '\"') > 0 OR strpos(" + x + ", E'\\n') > 0"
                + " OR strpos(" + x + ", E'\\r') > 0 OR ascii(right(" + x + ", 1)) <= 32";
        String doubled = "replace(" + x + ", '\"', '\"\"')";
        return "(CASE WHEN " + x + " IS NULL OR " + x + " = '' THEN ''"
                + " WHEN ascii(" + x + ") IN (61, 43, 45, 64, 9, 13) THEN (CASE WHEN " + special
                + " THEN '\"''' || " + doubled + " || '\"' ELSE '''' || " + x + " END)"
                + " WHEN ascii(" + x + ") <= 35 OR " + special + " THEN '\"' || " + doubled + " || '\"'"
                + " ELSE " + x + " END)";
    }
}
