package com.teamdesk.tasks.task.export;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;

/**
 * Writes the export's CSV (R13) from the raw columns PostgreSQL's binary {@code COPY} sends: each
 * keyset batch is one {@code COPY (SELECT ...) TO STDOUT (FORMAT binary)} of {@link #COLUMNS}; Java
 * formats the id, neutralises and quotes the text cells on their UTF-8 bytes (no decoding, no
 * {@code String} per cell) and writes the two timestamps ({@link CsvTimestamps}). The result is byte
 * for byte what the Commons CSV writer of issue 3 produced (RFC 4180, CRLF, BOM, header; proved by
 * {@code CopyCsvIdentityTest}).
 *
 * <p>Why binary and not {@code FORMAT csv}: PostgreSQL's CSV quoting differs from the one our files
 * have always had (Commons CSV also quotes a cell that starts with a character up to {@code #} or
 * ends with one up to a space, and never quotes an empty cell). Why the quoting is not in the SELECT
 * (as in the first version of issue 16): the cell expressions tripled PostgreSQL's time for the rows
 * (a 50k-row batch set: ~270 ms with them, ~90 ms raw), and PostgreSQL's backend is the export's
 * critical path, while the byte scan here runs beside it.
 *
 * <p>Not thread-safe; one instance per export. Memory: the unparsed tail of one COPY message.
 *
 * <p>Over 300 lines: one algorithm (COPY's raw columns to RFC 4180 CSV with its quoting and time zones)
 * whose parts are only correct together.
 */
final class CopyCsv {
    /** Header row, in column order. */
    static final String[] HEADER = {"id", "title", "status", "priority", "assignee", "requester",
        "created_at", "updated_at", "version", "body"};

    /**
     * The select list of a batch, over {@code t} (ticket), in the CSV's column order: id (uuid), title,
     * status, priority (text), assignee_id (uuid, may be NULL), requester_id (uuid), created_at,
     * updated_at (timestamptz), version (integer), body (text). The ids of the assignee and requester
     * become usernames here, from a map filled once per user ({@code usernames}): a join per row cost
     * PostgreSQL more than half of its time for the rows (two index probes a row, and the planning).
     */
    static final String COLUMNS = "t.id, t.title, t.status, t.priority, t.assignee_id, t.requester_id, t.created_at,"
            + " t.updated_at, t.version, t.body";

    private static final int FIELDS = 10;
    /** The assignee's id: NULL for an unassigned ticket. */
    private static final int NULLABLE_FIELD = 4;
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0};
    /** Microseconds from 1970-01-01 to 2000-01-01, PostgreSQL's timestamp epoch. */
    private static final long PG_EPOCH_MICROS = 946_684_800_000_000L;
    /** What pgjdbc's {@code getTimestamp} gives for {@code infinity} / {@code -infinity} (PGStatement), in ms. */
    private static final long PGJDBC_INFINITY_MS = 9223372036825200000L;
    private static final long PGJDBC_MINUS_INFINITY_MS = -9223372036832400000L;

    private final OutputStream out;
    private final CsvTimestamps times;
    private final Function<UUID, String> usernames;
    /** Username bytes by user id, filled once per user. */
    private final Map<UUID, byte[]> names = new HashMap<>();
    private final byte[] stamp = new byte[CsvTimestamps.MAX_FAST_LENGTH];
    private final byte[] uuidText = new byte[36];
    private final int[] start = new int[FIELDS];
    private final int[] length = new int[FIELDS];
    /** COPY bytes not written yet; allocated when the first message comes (an export of no row gets none). */
    private byte[] pending = new byte[0];
    private int pendingLength;
    private boolean headerRead;
    private boolean ended;

    /**
     * Starts a CSV: writes the BOM and the header row.
     *
     * @param out       where the CSV bytes go (UTF-8); not closed here
     * @param zone      zone of the timestamps
     * @param usernames the username of a user id; asked once per user (the answer is kept), on the
     *                  export's thread while a COPY is open on the batch's connection, so it must use
     *                  another; null or a failure ends the export
     * @throws IOException when the stream fails
     */
    CopyCsv(OutputStream out, ZoneId zone, Function<UUID, String> usernames) throws IOException {
        this.out = out;
        this.usernames = usernames;
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
            pending = Arrays.copyOf(pending, Math.max(Math.max(pending.length * 2, 64 * 1024), pendingLength + message.length));
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
                if (n < 0 && f != NULLABLE_FIELD) {
                    throw new IllegalStateException("NULL in COPY field " + f);
                }
                if (pendingLength - q < n) {
                    complete = false;
                    break;
                }
                start[f] = q;
                length[f] = n;
                q += Math.max(0, n);
            }
            if (!complete) {
                break;
            }
            uuid(start[0]);
            out.write(',');
            cell(start[1], length[1]);
            out.write(',');
            out.write(pending, start[2], length[2]);
            out.write(',');
            out.write(pending, start[3], length[3]);
            out.write(',');
            if (length[4] >= 0) {
                username(start[4]);
            }
            out.write(',');
            username(start[5]);
            out.write(',');
            long created = int64(start[6]);
            timestamp(created);
            out.write(',');
            timestamp(int64(start[7]));
            out.write(',');
            decimal(int32(start[8]));
            out.write(',');
            cell(start[9], length[9]);
            out.write(CRLF, 0, 2);
            lastCreated = created;
            idHigh = int64(start[0]);
            idLow = int64(start[0] + 8);
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
     * Writes a text cell's UTF-8 bytes {@code [s, s + n)} (n &lt; 0: NULL): NULL and empty give
     * nothing; a value starting with {@code = + - @}, tab or CR gets a leading apostrophe (formula
     * neutralisation, OWASP "CSV injection"); then the cell is quoted (quotes doubled) when it starts
     * with a character up to {@code #}, holds a comma, quote, CR or LF, or ends with a character up
     * to a space — the rules of Commons CSV's minimal quoting that the files had before. Every
     * character these rules name is ASCII, and in UTF-8 no byte of a multi-byte character is below
     * 0x80, so comparing bytes is comparing characters.
     */
    private void cell(int s, int n) throws IOException {
        cell(pending, s, n);
    }

    private void cell(byte[] b, int s, int n) throws IOException {
        if (n <= 0) {
            return;
        }
        int first = b[s] & 0xFF;
        boolean neutralise = first == '=' || first == '+' || first == '-' || first == '@' || first == '\t' || first == '\r';
        boolean special = (b[s + n - 1] & 0xFF) <= ' ';
        int end = s + n;
        int quotes = 0;
        for (int i = s; i < end; i++) {
            byte c = b[i];
            if (c == ',' || c == '\n' || c == '\r') {
                special = true;
            } else if (c == '"') {
                special = true;
                quotes++;
            }
        }
        if (neutralise) {
            if (special) {
                out.write('"');
                out.write('\'');
                quoted(b, s, end, quotes);
                out.write('"');
            } else {
                out.write('\'');
                out.write(b, s, n);
            }
        } else if (first <= '#' || special) {
            out.write('"');
            quoted(b, s, end, quotes);
            out.write('"');
        } else {
            out.write(b, s, n);
        }
    }

    /** Writes {@code [s, end)} with each quote doubled; {@code quotes} is how many there are. */
    private void quoted(byte[] b, int s, int end, int quotes) throws IOException {
        if (quotes == 0) {
            out.write(b, s, end - s);
            return;
        }
        int from = s;
        for (int i = s; i < end; i++) {
            if (b[i] == '"') {
                out.write(b, from, i + 1 - from);
                from = i; // the quote is written again with the next run
            }
        }
        out.write(b, from, end - from);
    }

    /** Writes the username of the binary user id at {@code p} as a text cell. */
    private void username(int p) throws IOException {
        UUID id = new UUID(int64(p), int64(p + 8));
        byte[] name = names.get(id);
        if (name == null) {
            String text = usernames.apply(id);
            if (text == null) {
                throw new IllegalStateException("no user " + id);
            }
            name = text.getBytes(StandardCharsets.UTF_8);
            names.put(id, name);
        }
        cell(name, 0, name.length);
    }

    /** Writes the binary uuid at {@code p} as PostgreSQL's text does: lower-case hex, 8-4-4-4-12. */
    private void uuid(int p) throws IOException {
        byte[] text = uuidText;
        int t = 0;
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) {
                text[t++] = '-';
            }
            int v = pending[p + i] & 0xFF;
            text[t++] = HEX[v >>> 4];
            text[t++] = HEX[v & 0xF];
        }
        out.write(text, 0, 36);
    }

    /** Writes an int in decimal, as {@code Integer.toString}. */
    private void decimal(int v) throws IOException {
        if (v == Integer.MIN_VALUE) {
            out.write(Integer.toString(v).getBytes(StandardCharsets.US_ASCII));
            return;
        }
        byte[] d = stamp;
        int p = d.length;
        boolean negative = v < 0;
        int x = negative ? -v : v;
        do {
            d[--p] = (byte) ('0' + x % 10);
            x /= 10;
        } while (x != 0);
        if (negative) {
            d[--p] = '-';
        }
        out.write(d, p, d.length - p);
    }
}
