package com.teamdesk.tasks.team.calendar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.team.calendar.BusinessCalendar.Holiday;
import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * R55's iCalendar import against the files a hostile owner sent in review: a time zone definition that iCal4j would
 * expand onset by onset since 1601 (minutes of CPU, or all the memory, and a zone registered in the JVM for ever), a
 * holiday beyond year 9999 and a name of 150 emoji, both of which the calendar could store but not read back.
 */
class HolidayImportTest {
    private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

    @Test
    void aTimeZoneDefinitionIsNeverParsedOrRegistered() {
        String hostile = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\n"
                + "BEGIN:VTIMEZONE\r\nTZID:Evil\r\nBEGIN:STANDARD\r\nDTSTART:16010101T000000\r\nRRULE:FREQ=SECONDLY\r\n"
                + "TZOFFSETFROM:+0100\r\nTZOFFSETTO:+0000\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
                + "begin;x-a=1:vtimezone\rTZID:Evil2\rEND:VTIMEZONE\r"
                + "BEGIN:VEVENT\r\nUID:a@x\r\nDTSTAMP:20270101T000000Z\r\nSUMMARY:Day\r\n off\r\n"
                + "DTSTART;VALUE=DATE:20270501\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        long registered = ZoneId.getAvailableZoneIds().stream().filter(z -> z.startsWith("ical4j")).count();
        String stripped = HolidayImport.withoutTimeZones(hostile);
        assertFalse(stripped.toUpperCase().contains("VTIMEZONE"), stripped);
        assertFalse(stripped.contains("SECONDLY"), stripped);
        assertEquals(List.of(new Holiday(LocalDate.of(2027, 5, 1), LocalDate.of(2027, 5, 1), "Dayoff")),
                HolidayImport.read(hostile, SHANGHAI), "a folded SUMMARY is unfolded");
        assertEquals(registered, ZoneId.getAvailableZoneIds().stream().filter(z -> z.startsWith("ical4j")).count(),
                "no zone registered by an upload");
    }

    @Test
    void whatTheImportReadsTheCalendarCanStoreAndReadBack() {
        String far = event("DTSTART;VALUE=DATE:99991231\r\nDURATION:P3D\r\n");
        List<Holiday> read = HolidayImport.read(far, SHANGHAI);
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> calendar(read));
        assertEquals("calendar.holiday_invalid", e.code(), "refused before it is stored, not after");

        String emoji = event("DTSTART;VALUE=DATE:20270501\r\nSUMMARY:" + "\uD83C\uDF89".repeat(150) + "\r\n");
        Holiday h = HolidayImport.read(emoji, SHANGHAI).get(0);
        assertTrue(h.name().length() <= BusinessCalendar.MAX_NAME, h.name().length() + " UTF-16 characters");
        assertEquals(100, h.name().codePointCount(0, h.name().length()), "cut between characters, never inside one");
        assertEquals(1, calendar(List.of(h)).holidays().size());

        assertEquals("calendar.ical_malformed", assertThrows(InvalidInputException.class, () -> HolidayImport.read(
                event("DTSTART;VALUE=DATE:20270501\r\nRDATE;VALUE=DATE:20280501\r\n"), SHANGHAI)).code(),
                "RDATE repeats too");
    }

    private static BusinessCalendar calendar(List<Holiday> holidays) {
        return new BusinessCalendar(SHANGHAI, List.of(new BusinessCalendar.Shift(DayOfWeek.MONDAY, LocalTime.of(9, 0),
                LocalTime.of(17, 0))), holidays);
    }

    private static String event(String properties) {
        return "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\nBEGIN:VEVENT\r\nUID:b@x\r\n"
                + "DTSTAMP:20270101T000000Z\r\n" + properties + "END:VEVENT\r\nEND:VCALENDAR\r\n";
    }
}
