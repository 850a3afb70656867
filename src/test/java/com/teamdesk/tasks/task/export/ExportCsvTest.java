package com.teamdesk.tasks.task.export;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.team.Priority;
import com.teamdesk.tasks.team.TicketRow;
import com.teamdesk.tasks.team.TicketStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;

/** R13: RFC 4180, UTF-8 with BOM, header, offsets of the requested zone, formulas neutralised. */
class ExportCsvTest {

    private static final Instant CREATED = Instant.parse("2026-11-29T01:02:03.456Z");

    private static TicketRow row(String title, String body, String assignee) {
        return new TicketRow(UUID.fromString("00000000-0000-4000-8000-000000000042"), UUID.randomUUID(), title, body,
                TicketStatus.OPEN, Priority.HIGH, null, assignee, UUID.randomUUID(), "dana", CREATED,
                CREATED.plusSeconds(60), 7);
    }

    private static byte[] write(ZoneId zone, TicketRow... rows) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ExportCsv csv = new ExportCsv(new OutputStreamWriter(out, StandardCharsets.UTF_8), zone)) {
            for (TicketRow r : rows) {
                csv.write(r);
            }
        }
        return out.toByteArray();
    }

    private static List<CSVRecord> parse(byte[] bytes) throws IOException {
        String text = new String(bytes, 3, bytes.length - 3, StandardCharsets.UTF_8);
        return CSVFormat.RFC4180.parse(new StringReader(text)).getRecords();
    }

    @Test
    void startsWithBomAndHeaderAndUsesCrlf() throws IOException {
        byte[] bytes = write(ZoneOffset.UTC, row("Printer", "jammed", "ben"));
        assertArrayEquals(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, Arrays.copyOf(bytes, 3));
        String text = new String(bytes, StandardCharsets.UTF_8);
        assertTrue(text.startsWith("\uFEFFid,title,status,priority,assignee,requester,created_at,updated_at,version,body\r\n"),
                text);
        List<CSVRecord> records = parse(bytes);
        assertEquals(2, records.size());
        assertEquals(List.of(ExportCsv.HEADER), records.get(0).toList());
    }

    @Test
    void quotesCommasQuotesAndLineBreaksAndKeepsChineseAndEmoji() throws IOException {
        String title = "打印机坏了, \"urgent\" 🙂";
        String body = "line one\r\nline two, with comma\n第三行";
        List<CSVRecord> records = parse(write(ZoneOffset.UTC, row(title, body, "chen")));
        CSVRecord r = records.get(1);
        assertEquals(title, r.get(1));
        assertEquals(body, r.get(9));
        assertEquals("chen", r.get(4));
        assertEquals("7", r.get(8));
    }

    @Test
    void neutralisesFormulaLikeTextCellsButNotNumbers() throws IOException {
        for (String evil : List.of("=SUM(A1:A2)", "+1 call back", "-5% refund", "@channel", "\tTabbed", "\rCR")) {
            CSVRecord r = parse(write(ZoneOffset.UTC, row(evil, evil, evil))).get(1);
            assertEquals("'" + evil, r.get(1), "title " + evil);
            assertEquals("'" + evil, r.get(9), "body " + evil);
            assertEquals("'" + evil, r.get(4), "assignee " + evil);
            assertEquals("7", r.get(8));
        }
        assertEquals("plain", ExportCsv.text("plain"));
        assertEquals("", ExportCsv.text(null));
    }

    @Test
    void timestampsCarryTheRequestedZonesOffsetToTheSecond() throws IOException {
        CSVRecord shanghai = parse(write(ZoneId.of("Asia/Shanghai"), row("t", "b", null))).get(1);
        assertEquals("2026-11-29T09:02:03+08:00", shanghai.get(6));
        assertEquals("2026-11-29T09:03:03+08:00", shanghai.get(7));
        assertEquals("", shanghai.get(4));
        CSVRecord utc = parse(write(ZoneOffset.UTC, row("t", "b", null))).get(1);
        assertEquals("2026-11-29T01:02:03Z", utc.get(6));
    }
}
