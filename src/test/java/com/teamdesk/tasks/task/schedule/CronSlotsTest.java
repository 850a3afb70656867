package com.teamdesk.tasks.task.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.teamdesk.tasks.common.InvalidInputException;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * R41 slot by slot: a schedule's slots in its zone, through the days the clocks change in America/New_York
 * (2026-03-08 02:00 -> 03:00, 2026-11-01 02:00 -> 01:00) and Europe/Berlin (2026-03-29 02:00 -> 03:00,
 * 2026-10-25 03:00 -> 02:00), and in Asia/Shanghai, which has none. Every expected instant is written in UTC.
 */
class CronSlotsTest {

    private static List<Instant> slots(String cron, String zone, String after, int n) {
        return CronSlots.parse(cron, zone).next(Instant.parse(after), n);
    }

    private static List<Instant> utc(String... instants) {
        return java.util.Arrays.stream(instants).map(Instant::parse).toList();
    }

    @Test
    void aSlotInTheHourNewYorkSkipsRunsOnceAtTheGapsEnd() {
        assertEquals(utc("2026-03-07T07:30:00Z", "2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"),
                slots("30 2 * * *", "America/New_York", "2026-03-07T00:00:00Z", 3),
                "02:30 EST, then 03:00 EDT (02:30 does not exist that day), then 02:30 EDT");
    }

    @Test
    void aSlotInTheHourNewYorkRepeatsRunsOnceAtItsFirstOccurrence() {
        assertEquals(utc("2026-10-31T05:30:00Z", "2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"),
                slots("30 1 * * *", "America/New_York", "2026-10-31T00:00:00Z", 3),
                "01:30 EDT on Nov 1 and not again at 01:30 EST; then 01:30 EST on Nov 2");
    }

    @Test
    void berlinSkipsAndRepeatsItsHourOnceEach() {
        assertEquals(utc("2026-03-28T01:30:00Z", "2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"),
                slots("30 2 * * *", "Europe/Berlin", "2026-03-28T00:00:00Z", 3), "spring forward: 03:00 CEST");
        assertEquals(utc("2026-10-24T00:30:00Z", "2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"),
                slots("30 2 * * *", "Europe/Berlin", "2026-10-24T00:00:00Z", 3), "fall back: 02:30 CEST once");
    }

    @Test
    void quarterHoursThroughBothChangesFireOncePerWallClockTime() {
        assertEquals(utc("2026-03-08T06:45:00Z", "2026-03-08T07:00:00Z", "2026-03-08T07:15:00Z"),
                slots("*/15 * * * *", "America/New_York", "2026-03-08T06:40:00Z", 3),
                "01:45 EST, then 02:00-02:45 (skipped) once at 03:00 EDT, then 03:15 EDT");
        assertEquals(utc("2026-11-01T05:30:00Z", "2026-11-01T05:45:00Z", "2026-11-01T07:00:00Z"),
                slots("*/15 * * * *", "America/New_York", "2026-11-01T05:20:00Z", 3),
                "01:30 and 01:45 EDT, not the repeated 01:00-01:45 EST, then 02:00 EST");
        assertEquals(utc("2026-11-01T07:00:00Z"), slots("*/15 * * * *", "America/New_York", "2026-11-01T06:20:00Z", 1),
                "from inside the repeated hour (01:20 EST) the next slot is 02:00 EST, not a past 01:30 EDT");
    }

    @Test
    void shanghaiHasNoChangeAndMondaysAreMondays() {
        assertEquals(utc("2026-12-07T01:00:00Z", "2026-12-14T01:00:00Z"),
                slots("0 9 * * MON", "Asia/Shanghai", "2026-12-03T00:00:00Z", 2));
        assertEquals(utc("2027-03-15T01:00:00Z"), slots("0 9 * * 1", "Asia/Shanghai", "2027-03-08T01:00:00Z", 1),
                "strictly after: a slot is never its own next");
    }

    @Test
    void nicknamesAndTheUnixOrOfDayOfMonthAndDayOfWeek() {
        assertEquals(utc("2026-12-04T00:00:00Z"), slots("@daily", "UTC", "2026-12-03T10:00:00Z", 1));
        assertEquals(utc("2026-12-06T00:00:00Z"), slots("@weekly", "UTC", "2026-12-03T10:00:00Z", 1), "a Sunday");
        assertEquals(utc("2027-01-01T00:00:00Z"), slots("@MONTHLY", "UTC", "2026-12-03T10:00:00Z", 1));
        assertEquals(utc("2026-12-07T00:00:00Z", "2026-12-14T00:00:00Z", "2026-12-15T00:00:00Z"),
                slots("0 0 15 * MON", "UTC", "2026-12-03T10:00:00Z", 3), "Mondays or the 15th, as crontab(5)");
    }

    @Test
    void badExpressionsAndZonesAreRefusedWithTheirCodes() {
        for (String bad : new String[] {"", "   ", "* * *", "61 * * * *", "* 25 * * *", "hello world", "@often",
                "0 0 30 2 *", "x".repeat(201), "* * * * * * * *"}) {
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> CronSlots.parse(bad, "UTC"), bad);
            assertEquals("schedule.cron_invalid", e.code(), bad);
        }
        assertEquals("schedule.too_frequent", assertThrows(InvalidInputException.class,
                () -> CronSlots.parse("*/10 * * * * *", "UTC")).code());
        for (String zone : new String[] {null, "", "Mars/Olympus", "EST5EDT; DROP", "../../etc/passwd", "+99:00",
                "GMT+8", "UTC+01:00", "UT-5"}) { // offset forms have no region, so no DST rules
            assertEquals("schedule.zone_invalid", assertThrows(InvalidInputException.class,
                    () -> CronSlots.parse("@daily", zone)).code(), String.valueOf(zone));
        }
    }

    /** Issue 49: crontab(5) knows ASCII digits and names; cron-utils took any Unicode digit and stored it as sent. */
    @Test
    void onlyAsciiDigitsNamesAndTheDocumentedSeparators() {
        for (String bad : new String[] {"\u0660 9 * * *", "\uff10 9 * * *", "0 \u0669 * * *", "0 9 * * MON\u2028",
                "0 9 * * MON\u00a0", "0\u20039 * * *", "0 9 * * M\u00d6N", "0 9 * * \uff2d\uff2f\uff2e", "0 9\n* * *",
                "0 9 * * 1\u200b"}) {
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> CronSlots.parse(bad, "UTC"), bad);
            assertEquals("schedule.cron_invalid", e.code(), bad);
        }
        assertEquals("0 9 * * MON", CronSlots.parse(" \t0 9 * * MON\t ", "UTC").expression(), "ASCII blanks are trimmed");
        assertEquals("0\t9 * * MON", CronSlots.parse("0\t9 * * MON", "UTC").expression(), "a tab separates fields");
    }

    /** Issue 49: SUN starts a range as 0 and ends one as 7, as crontab(5) reads it; SUN-SAT was refused. */
    @Test
    void sundayAsTheStartOrTheEndOfADayRange() {
        String sat = "2026-12-05T00:00:00Z"; // a Saturday
        assertEquals(utc("2026-12-05T09:00:00Z", "2026-12-06T09:00:00Z", "2026-12-07T09:00:00Z"),
                slots("0 9 * * SUN-SAT", "UTC", sat, 3), "every day");
        assertEquals(utc("2026-12-06T09:00:00Z", "2026-12-07T09:00:00Z", "2026-12-13T09:00:00Z"),
                slots("0 9 * * SUN-MON", "UTC", sat, 3), "Sunday and Monday");
        assertEquals(utc("2026-12-05T09:00:00Z", "2026-12-06T09:00:00Z", "2026-12-07T09:00:00Z"),
                slots("0 9 * * mon-sun", "UTC", sat, 3), "Monday to Sunday, as before: every day");
        assertEquals(utc("2026-12-05T09:00:00Z", "2026-12-06T09:00:00Z", "2026-12-12T09:00:00Z"),
                slots("0 9 * * SAT-SUN", "UTC", sat, 3), "the weekend");
        assertEquals(slots("0 9 * * 0-6/2", "UTC", sat, 4), slots("0 9 * * SUN-SAT/2", "UTC", sat, 4), "with a step");
        assertEquals(slots("0 9 * * 0,3", "UTC", sat, 4), slots("0 9 * * SUN,WED", "UTC", sat, 4), "a list");
        assertEquals("0-6,1-7/2,5", CronSlots.numericDaysOfWeek("SUN-SAT,MON-SUN/2,FRI"));
        assertEquals("*", CronSlots.numericDaysOfWeek("*"));
        assertEquals("UNM", CronSlots.numericDaysOfWeek("UNM"), "not a day name: the parser refuses it");
    }
}
