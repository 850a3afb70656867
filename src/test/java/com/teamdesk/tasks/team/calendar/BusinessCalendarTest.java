package com.teamdesk.tasks.team.calendar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.team.calendar.BusinessCalendar.Holiday;
import com.teamdesk.tasks.team.calendar.BusinessCalendar.Shift;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * R55's business-time arithmetic against a brute-force reference that asks of every single minute whether it is
 * working time (the definition, not the walk): random calendars with split days, overnight shifts and holidays in
 * zones with DST changes at 02:00 (America/New_York, Europe/Berlin), at midnight (America/Santiago,
 * America/Havana), half-hour offsets (Asia/Kolkata) and none (Asia/Shanghai). The seed is printed in every failure.
 */
class BusinessCalendarTest {
    private static final List<ZoneId> ZONES = List.of(ZoneId.of("America/New_York"), ZoneId.of("Europe/Berlin"),
            ZoneId.of("America/Santiago"), ZoneId.of("America/Havana"), ZoneId.of("Asia/Kolkata"),
            ZoneId.of("Asia/Shanghai"), ZoneId.of("UTC"));
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final List<Shift> NINE_TO_FIVE = weekdays(LocalTime.of(9, 0), LocalTime.of(17, 0));

    @Test
    void randomCalendarsAgreeWithTheMinuteByMinuteReference() {
        long seed = 53_2027L;
        SplittableRandom random = new SplittableRandom(seed);
        int cases = 0;
        while (cases < 2000) {
            BusinessCalendar calendar;
            try {
                calendar = randomCalendar(random);
            } catch (InvalidInputException overlapping) {
                continue; // drawn with overlapping shifts: refused, as the API would
            }
            Reference ref = new Reference(calendar);
            // a start near one of the zone's DST changes of 2027 half of the time
            Instant start = random.nextBoolean() ? nearTransition(calendar.zone(), random)
                    : Instant.parse("2027-01-01T00:00:00Z").plus(random.nextInt(365 * 1440), ChronoUnit.MINUTES);
            int minutes = 1 + random.nextInt(2400);
            String what = "case " + cases + " (seed " + seed + "): " + describe(calendar) + " from " + start + " + "
                    + minutes + " min";
            Optional<Instant> expected = ref.plus(start, minutes);
            assertEquals(expected, calendar.plus(start, Duration.ofMinutes(minutes)), what);
            Instant end = start.plus(random.nextInt(10 * 1440), ChronoUnit.MINUTES);
            assertEquals(Duration.ofMinutes(ref.between(start, end)), calendar.between(start, end), what + ", between "
                    + start + " and " + end);
            expected.ifPresent(due -> assertEquals(Duration.ofMinutes(minutes), calendar.between(start, due), what));
            cases++;
        }
    }

    /** America/New_York 2027: clocks go forward on 14 March at 02:00 and back on 7 November at 02:00. */
    @Test
    void newYorkNightShiftsAcrossTheChangesOf2027() {
        BusinessCalendar nights = new BusinessCalendar(NEW_YORK, List.of(new Shift(DayOfWeek.SATURDAY,
                LocalTime.of(22, 0), LocalTime.of(6, 0))), List.of());
        Instant marchStart = ZonedDateTime.of(LocalDateTime.of(2027, 3, 13, 22, 0), NEW_YORK).toInstant();
        Instant marchEnd = ZonedDateTime.of(LocalDateTime.of(2027, 3, 14, 6, 0), NEW_YORK).toInstant();
        assertEquals(Duration.ofHours(7), nights.between(marchStart.minusSeconds(60), marchEnd.plusSeconds(60)),
                "spring forward: the 8-hour shift has 7 hours");
        Instant novStart = ZonedDateTime.of(LocalDateTime.of(2027, 11, 6, 22, 0), NEW_YORK).toInstant();
        assertEquals(Duration.ofHours(9), nights.between(novStart, novStart.plus(Duration.ofHours(12))),
                "fall back: it has 9");
        assertEquals(Optional.of(novStart.plus(Duration.ofHours(9))), nights.plus(novStart, Duration.ofHours(9)));
        assertEquals(Optional.of(ZonedDateTime.of(LocalDateTime.of(2027, 11, 13, 22, 1), NEW_YORK).toInstant()),
                nights.plus(novStart, Duration.ofMinutes(9 * 60 + 1)), "the 9h01 minute is next Saturday's first");
    }

    /** Europe/Berlin 2027: forward on 28 March at 02:00 (to 03:00), back on 31 October at 03:00 (to 02:00). */
    @Test
    void berlinShiftsInsideTheChangesOf2027() {
        BusinessCalendar early = new BusinessCalendar(BERLIN, List.of(new Shift(DayOfWeek.SUNDAY, LocalTime.of(1, 0),
                LocalTime.of(4, 0))), List.of());
        Instant march = ZonedDateTime.of(LocalDateTime.of(2027, 3, 28, 0, 0), BERLIN).toInstant();
        assertEquals(Duration.ofHours(2), early.between(march, march.plus(Duration.ofHours(6))));
        Instant october = ZonedDateTime.of(LocalDateTime.of(2027, 10, 31, 0, 0), BERLIN).toInstant();
        assertEquals(Duration.ofHours(4), early.between(october, october.plus(Duration.ofHours(7))));
        // 02:30 does not exist on 28 March: a shift starting then starts at 03:30 (moved by the gap)
        BusinessCalendar gap = new BusinessCalendar(BERLIN, List.of(new Shift(DayOfWeek.SUNDAY, LocalTime.of(2, 30),
                LocalTime.of(5, 0))), List.of());
        assertEquals(Optional.of(ZonedDateTime.of(LocalDateTime.of(2027, 3, 28, 3, 31), BERLIN).toInstant()),
                gap.plus(march, Duration.ofMinutes(1)));
    }

    /**
     * Found in review: on a spring-forward day a shift ending at 02:30 (which does not exist: 03:30) and one starting
     * at 03:00 overlap in real time; no minute may count twice.
     */
    @Test
    void shiftsThatADstGapMakesOverlapCountEachMinuteOnce() {
        BusinessCalendar split = new BusinessCalendar(BERLIN, List.of(
                new Shift(DayOfWeek.SUNDAY, LocalTime.of(0, 0), LocalTime.of(2, 30)),
                new Shift(DayOfWeek.SUNDAY, LocalTime.of(3, 0), LocalTime.of(5, 0))), List.of());
        Instant midnight = ZonedDateTime.of(LocalDateTime.of(2027, 3, 28, 0, 0), BERLIN).toInstant();
        assertEquals(Duration.ofHours(4), split.between(midnight, midnight.plus(Duration.ofHours(6))),
                "00:00-05:00 local is 4 real hours, each counted once");
        assertEquals(Optional.of(ZonedDateTime.of(LocalDateTime.of(2027, 3, 28, 4, 0), BERLIN).toInstant()),
                split.plus(midnight, Duration.ofMinutes(180)));
        Reference ref = new Reference(split);
        assertEquals(ref.between(midnight, midnight.plus(Duration.ofHours(6))), 240);
    }

    /** Asia/Shanghai, no DST: a Spring Festival week off moves a Friday-evening promise past the holiday. */
    @Test
    void aHolidayWeekIsSkipped() {
        ZoneId shanghai = ZoneId.of("Asia/Shanghai");
        BusinessCalendar calendar = new BusinessCalendar(shanghai, NINE_TO_FIVE, List.of(new Holiday(
                LocalDate.of(2027, 2, 6), LocalDate.of(2027, 2, 12), "Spring Festival")));
        Instant fridayFour = ZonedDateTime.of(LocalDateTime.of(2027, 2, 5, 16, 0), shanghai).toInstant();
        assertEquals(Optional.of(ZonedDateTime.of(LocalDateTime.of(2027, 2, 15, 12, 0), shanghai).toInstant()),
                calendar.plus(fridayFour, Duration.ofHours(4)), "1 h on Friday, none in the festival week, 3 on Monday");
    }

    @Test
    void badCalendarsAreRefused() {
        assertCode("calendar.interval_invalid", () -> new BusinessCalendar(BERLIN, List.of(new Shift(DayOfWeek.MONDAY,
                LocalTime.of(9, 0), LocalTime.of(9, 0))), List.of()));
        assertCode("calendar.interval_overlap", () -> new BusinessCalendar(BERLIN, List.of(
                new Shift(DayOfWeek.MONDAY, LocalTime.of(9, 0), LocalTime.of(12, 0)),
                new Shift(DayOfWeek.MONDAY, LocalTime.of(11, 0), LocalTime.of(13, 0))), List.of()));
        assertCode("calendar.interval_overlap", () -> new BusinessCalendar(BERLIN, List.of(
                new Shift(DayOfWeek.SUNDAY, LocalTime.of(22, 0), LocalTime.of(6, 0)),
                new Shift(DayOfWeek.MONDAY, LocalTime.of(5, 0), LocalTime.of(8, 0))), List.of()),
                "Sunday's night shift runs into Monday");
        assertCode("calendar.no_working_time", () -> new BusinessCalendar(BERLIN, List.of(), List.of()));
        assertCode("calendar.holiday_invalid", () -> new BusinessCalendar(BERLIN, NINE_TO_FIVE, List.of(new Holiday(
                LocalDate.of(2027, 5, 2), LocalDate.of(2027, 5, 1), "backwards"))));
        BusinessCalendar allOff = new BusinessCalendar(BERLIN, NINE_TO_FIVE, List.of(new Holiday(LocalDate.of(2000, 1, 1),
                LocalDate.of(2100, 1, 1), "closed")));
        assertEquals(Optional.empty(), allOff.plus(Instant.parse("2027-01-01T00:00:00Z"), Duration.ofMinutes(1)));
    }

    private static void assertCode(String code, Runnable r, String... why) {
        InvalidInputException e = assertThrows(InvalidInputException.class, r::run, String.join(" ", why));
        assertEquals(code, e.code());
    }

    /** The definition, minute by minute: a minute works when a non-holiday shift's window contains it. */
    private static final class Reference {
        private final BusinessCalendar calendar;
        private final Map<LocalDate, List<Instant[]>> windows = new HashMap<>();

        Reference(BusinessCalendar calendar) {
            this.calendar = calendar;
        }

        boolean works(Instant minute) {
            LocalDate day = minute.atZone(calendar.zone()).toLocalDate();
            for (LocalDate d : List.of(day.minusDays(1), day)) {
                for (Instant[] w : windows.computeIfAbsent(d, this::shiftWindows)) {
                    if (!minute.isBefore(w[0]) && minute.isBefore(w[1])) {
                        return true;
                    }
                }
            }
            return false;
        }

        /** Computed here from the shifts themselves, not through the calendar's own walk. */
        private List<Instant[]> shiftWindows(LocalDate d) {
            List<Instant[]> out = new ArrayList<>();
            if (calendar.isHoliday(d)) {
                return out;
            }
            for (Shift s : calendar.shifts()) {
                if (s.day() == d.getDayOfWeek()) {
                    LocalDate endDay = s.end().isAfter(s.start()) ? d : d.plusDays(1);
                    out.add(new Instant[] {ZonedDateTime.of(d, s.start(), calendar.zone()).toInstant(),
                            ZonedDateTime.of(endDay, s.end(), calendar.zone()).toInstant()});
                }
            }
            return out;
        }

        Optional<Instant> plus(Instant from, int minutes) {
            Instant t = from;
            Instant limit = from.plus(Duration.ofDays(400));
            int left = minutes;
            while (t.isBefore(limit)) {
                if (works(t) && --left == 0) {
                    return Optional.of(t.plus(1, ChronoUnit.MINUTES));
                }
                t = t.plus(1, ChronoUnit.MINUTES);
            }
            return Optional.empty();
        }

        long between(Instant from, Instant to) {
            long n = 0;
            for (Instant t = from; t.isBefore(to); t = t.plus(1, ChronoUnit.MINUTES)) {
                if (works(t)) {
                    n++;
                }
            }
            return n;
        }
    }

    private static BusinessCalendar randomCalendar(SplittableRandom random) {
        ZoneId zone = ZONES.get(random.nextInt(ZONES.size()));
        List<Shift> shifts = new ArrayList<>();
        for (DayOfWeek day : DayOfWeek.values()) {
            int n = random.nextInt(4); // 0 to 3 shifts: days off, split days
            int at = random.nextInt(6 * 60);
            for (int i = 0; i < n && at < 1440; i++) {
                int length = 15 + random.nextInt(10 * 60);
                LocalTime start = LocalTime.of(at / 60, at % 60);
                int endMinute = (at + length) % 1440;
                boolean last = i == n - 1;
                if (at + length >= 1440 && !last) {
                    break; // only a day's last shift may run overnight
                }
                shifts.add(new Shift(day, start, LocalTime.of(endMinute / 60, endMinute % 60)));
                at += length + 1 + random.nextInt(4 * 60);
            }
        }
        if (shifts.isEmpty()) {
            shifts.add(new Shift(DayOfWeek.WEDNESDAY, LocalTime.of(10, 0), LocalTime.of(11, 0)));
        }
        List<Holiday> holidays = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
            LocalDate first = LocalDate.of(2027, 1, 1).plusDays(random.nextInt(365));
            holidays.add(new Holiday(first, first.plusDays(random.nextInt(10)), "h" + i));
        }
        return new BusinessCalendar(zone, shifts, holidays);
    }

    private static Instant nearTransition(ZoneId zone, SplittableRandom random) {
        var rules = zone.getRules();
        var t = rules.nextTransition(Instant.parse("2027-01-01T00:00:00Z").plus(random.nextInt(300), ChronoUnit.DAYS));
        Instant around = t == null ? Instant.parse("2027-03-14T07:00:00Z") : t.getInstant();
        return around.minus(random.nextInt(3 * 1440), ChronoUnit.MINUTES);
    }

    private static String describe(BusinessCalendar c) {
        return c.zone() + " " + c.shifts() + " " + c.holidays();
    }

    private static List<Shift> weekdays(LocalTime start, LocalTime end) {
        List<Shift> out = new ArrayList<>();
        for (DayOfWeek d : List.of(DayOfWeek.MONDAY, DayOfWeek.TUESDAY, DayOfWeek.WEDNESDAY, DayOfWeek.THURSDAY,
                DayOfWeek.FRIDAY)) {
            out.add(new Shift(d, start, end));
        }
        return out;
    }
}
