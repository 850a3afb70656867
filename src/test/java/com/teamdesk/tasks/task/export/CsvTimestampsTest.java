package com.teamdesk.tasks.task.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * R13, issue 16: the export's timestamp writer gives exactly the bytes of
 * {@code ISO_OFFSET_DATE_TIME.withZone(zone)} on the value truncated to the second, in every zone the
 * JVM knows, at every offset transition of 1850-2040 (one second before, at, after), at random
 * instants of years 1-9999, and through the formatter itself outside those years.
 */
class CsvTimestampsTest {

    private static String expected(ZoneId zone, Instant i) {
        return DateTimeFormatter.ISO_OFFSET_DATE_TIME.withZone(zone).format(i.truncatedTo(ChronoUnit.SECONDS));
    }

    private static String actual(CsvTimestamps t, Instant i) {
        byte[] buf = new byte[CsvTimestamps.MAX_FAST_LENGTH];
        long second = i.truncatedTo(ChronoUnit.SECONDS).getEpochSecond();
        int end = t.write(second, buf, 0);
        return end >= 0 ? new String(buf, 0, end, StandardCharsets.US_ASCII)
                : new String(t.slow(second), StandardCharsets.US_ASCII);
    }

    private static List<ZoneId> everyZone() {
        List<ZoneId> zones = new ArrayList<>();
        ZoneId.getAvailableZoneIds().stream().sorted().map(ZoneId::of).forEach(zones::add);
        zones.add(ZoneOffset.UTC);
        zones.add(ZoneOffset.ofHoursMinutes(5, 30));
        zones.add(ZoneOffset.ofHoursMinutesSeconds(-3, -30, -15));
        zones.add(ZoneId.of("GMT+08:00"));
        return zones;
    }

    @Test
    void everyTransitionOfEveryZoneMatchesTheFormatter() {
        Instant from = Instant.parse("1850-01-01T00:00:00Z");
        Instant to = Instant.parse("2040-01-01T00:00:00Z");
        int checked = 0;
        for (ZoneId zone : everyZone()) {
            CsvTimestamps t = new CsvTimestamps(zone);
            ZoneOffsetTransition tr = zone.getRules().nextTransition(from);
            while (tr != null && tr.getInstant().isBefore(to)) {
                for (long d = -1; d <= 1; d++) {
                    Instant i = tr.getInstant().plusSeconds(d);
                    assertEquals(expected(zone, i), actual(t, i), zone + " " + i);
                    checked++;
                }
                tr = zone.getRules().nextTransition(tr.getInstant());
            }
        }
        assertTrue(checked > 10_000, "transitions checked: " + checked);
    }

    @Test
    void randomInstantsOfYears1To9999AndBeyondMatchTheFormatter() {
        SplittableRandom random = new SplittableRandom(16);
        long min = Instant.parse("0001-01-02T00:00:00Z").getEpochSecond();
        long max = Instant.parse("9999-12-30T00:00:00Z").getEpochSecond();
        for (ZoneId zone : everyZone()) {
            CsvTimestamps t = new CsvTimestamps(zone);
            for (int n = 0; n < 200; n++) {
                Instant i = Instant.ofEpochSecond(random.nextLong(min, max), random.nextInt(1_000_000_000));
                assertEquals(expected(zone, i), actual(t, i), zone + " " + i);
            }
        }
        for (String edge : List.of("0001-01-01T00:00:00Z", "0000-12-31T23:59:59Z", "-0001-06-01T00:00:00Z",
                "9999-12-31T23:59:59.999999Z", "+10000-01-01T00:00:00Z", "+294276-12-31T23:59:59Z",
                "1969-12-31T23:59:59.500Z", "1890-06-01T12:00:00Z")) {
            Instant i = Instant.parse(edge);
            for (ZoneId zone : List.of(ZoneOffset.UTC, ZoneId.of("Asia/Kolkata"), ZoneId.of("America/Los_Angeles"),
                    ZoneId.of("Australia/Lord_Howe"))) {
                assertEquals(expected(zone, i), actual(new CsvTimestamps(zone), i), zone + " " + edge);
            }
        }
    }

    @Test
    void offsetsWithSecondsAndZeroOffsetsAreWrittenAsTheFormatterDoes() {
        Instant i = Instant.parse("1890-06-01T12:00:00Z");
        assertEquals("1890-06-01T17:21:10+05:21:10", actual(new CsvTimestamps(ZoneId.of("Asia/Kolkata")), i));
        assertEquals("1890-06-01T12:00:00Z", actual(new CsvTimestamps(ZoneId.of("Etc/UTC")), i));
        assertEquals("2026-11-29T09:02:03+08:00",
                actual(new CsvTimestamps(ZoneId.of("Asia/Shanghai")), Instant.parse("2026-11-29T01:02:03.999Z")));
    }
}
