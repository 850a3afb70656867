package com.teamdesk.tasks.task.export;

import com.teamdesk.tasks.team.TicketRow;
import java.io.IOException;
import java.io.Writer;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * The reference formatter: the export's CSV writer from issue 3 until issue 16, kept as the oracle
 * that {@link CopyCsv} must match byte for byte ({@code CopyCsvIdentityTest}). Writes tickets as CSV
 * with Apache Commons CSV: RFC 4180 (CRLF, quotes doubled, cells with
 * commas, quotes or line breaks quoted), a byte-order mark and a header row. Timestamps are
 * ISO-8601 with the offset of the requested zone, to the second. Text cells that a spreadsheet
 * would run as a formula (first character {@code = + - @}, tab or carriage return) get a leading
 * apostrophe; numeric cells are written as they are. Not thread-safe; one instance per export.
 */
public final class ExportCsv implements AutoCloseable {
    /** Header row, in column order. */
    public static final String[] HEADER = {"id", "title", "status", "priority", "assignee", "requester",
        "created_at", "updated_at", "version", "body"};

    private final CSVPrinter printer;
    private final DateTimeFormatter time;

    /**
     * Starts a CSV: writes the BOM and the header.
     *
     * @param out  UTF-8 writer; closed by {@link #close()}
     * @param zone zone of the timestamps
     * @throws IOException when the writer fails
     */
    public ExportCsv(Writer out, ZoneId zone) throws IOException {
        out.write('\uFEFF');
        this.printer = CSVFormat.RFC4180.builder().setHeader(HEADER).get().print(out);
        this.time = DateTimeFormatter.ISO_OFFSET_DATE_TIME.withZone(zone);
    }

    /** Writes one ticket as a record. */
    public void write(TicketRow t) throws IOException {
        printer.printRecord(t.id().toString(), text(t.title()), t.status().name(), t.priority().name(),
                text(t.assigneeUsername()), text(t.requesterUsername()), time(t.createdAt()), time(t.updatedAt()),
                t.version(), text(t.body()));
    }

    /**
     * Neutralises a text cell that spreadsheets would evaluate as a formula (OWASP "CSV injection").
     *
     * @return the text, with a leading apostrophe when it starts with {@code = + - @}, tab or CR;
     *         empty for null
     */
    public static String text(String s) {
        if (s == null || s.isEmpty()) {
            return "";
        }
        char c = s.charAt(0);
        return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r' ? "'" + s : s;
    }

    private String time(Instant i) {
        return time.format(i.truncatedTo(ChronoUnit.SECONDS));
    }

    @Override
    public void close() throws IOException {
        printer.close(true);
    }
}
