package com.teamdesk.tasks.team.calendar;

import com.teamdesk.tasks.common.InvalidInputException;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Issue 53 (R55): a team's working time — shifts per weekday in the team's IANA zone and holidays — and the business
 * time arithmetic on it. Pure code: no clock, no I/O; every instant comes from the caller (the database's clock, R37).
 *
 * <p>The rules, each in one place here:
 * <ul>
 * <li>A shift is a weekday and two local times of minute precision. When its end is not after its start it runs
 * overnight into the next day ({@code 22:00-06:00}); start equal to end is refused as empty. A shift belongs to the
 * day it starts on: a holiday removes the shifts that start on it, overnight ones included.</li>
 * <li>A local time that does not exist (a DST gap) is moved forward by the gap's length, and one that exists twice
 * (a DST overlap) is its earlier instant ({@link ZonedDateTime#of}'s rule); a shift's business time is the real time
 * between its two instants, so a night shift across a spring-forward change is an hour shorter.</li>
 * <li>Two shifts of the week may not overlap (wrapping from Sunday into Monday), so that no minute counts twice.</li>
 * <li>A calendar has some working time; holidays are inclusive ranges of local dates.</li>
 * </ul>
 */
public final class BusinessCalendar {
    /** The farthest a computation looks ahead before it answers "not within the horizon", in days. */
    public static final int HORIZON_DAYS = 366 * 5;

    private final ZoneId zone;
    private final List<Shift> shifts;
    private final List<Holiday> holidays;
    /** The holidays' days as disjoint ranges, first day → last day, for a lookup in log time. */
    private final java.util.TreeMap<LocalDate, LocalDate> daysOff = new java.util.TreeMap<>();
    private final Map<DayOfWeek, List<Shift>> byDay = new EnumMap<>(DayOfWeek.class);
    /** Every minute works ({@link #allHours}): a team without a calendar. */
    private final boolean allHours;

    /** A weekday's working interval in local time; {@code end} not after {@code start} runs overnight. */
    public record Shift(DayOfWeek day, LocalTime start, LocalTime end) {
        /** @return true when it runs into the next day */
        public boolean overnight() {
            return !end.isAfter(start);
        }

        /** @return its length in local minutes */
        public int minutes() {
            int s = start.getHour() * 60 + start.getMinute();
            int e = end.getHour() * 60 + end.getMinute();
            return overnight() ? e + 1440 - s : e - s;
        }
    }

    /** Days off, {@code first} to {@code last} inclusive (local dates of the team's zone). */
    public record Holiday(LocalDate first, LocalDate last, String name) {
    }

    /**
     * @throws InvalidInputException {@code calendar.interval_invalid} a time with seconds, or a shift whose start
     *                               equals its end; {@code calendar.interval_overlap} two shifts share a minute;
     *                               {@code calendar.no_working_time} no shift at all; {@code calendar.holiday_invalid}
     *                               a holiday that ends before it starts
     */
    public BusinessCalendar(ZoneId zone, List<Shift> shifts, List<Holiday> holidays) {
        this.zone = zone;
        this.shifts = List.copyOf(shifts);
        this.holidays = List.copyOf(holidays);
        this.allHours = false;
        for (Shift s : shifts) {
            if (s.start().getSecond() != 0 || s.start().getNano() != 0 || s.end().getSecond() != 0
                    || s.end().getNano() != 0) {
                throw new InvalidInputException("calendar.interval_invalid", "A shift's times are hours and minutes"
                        + " (" + s.day() + " " + s.start() + "-" + s.end() + ").");
            }
            if (s.start().equals(s.end())) {
                throw new InvalidInputException("calendar.interval_invalid", "The shift " + s.day() + " " + s.start()
                        + "-" + s.end() + " is empty: its start equals its end.");
            }
            byDay.computeIfAbsent(s.day(), d -> new ArrayList<>()).add(s);
        }
        if (shifts.isEmpty()) {
            throw new InvalidInputException("calendar.no_working_time", "A calendar needs at least one shift.");
        }
        byDay.values().forEach(l -> l.sort(Comparator.comparing(Shift::start)));
        checkOverlaps();
        for (Holiday h : holidays) {
            if (h.last().isBefore(h.first())) {
                throw new InvalidInputException("calendar.holiday_invalid", "The holiday '" + h.name() + "' ends ("
                        + h.last() + ") before it starts (" + h.first() + ").");
            }
            if (h.first().isBefore(FIRST_DAY) || h.last().isAfter(LAST_DAY)) {
                throw new InvalidInputException("calendar.holiday_invalid", "A holiday lies between " + FIRST_DAY
                        + " and " + LAST_DAY + " ('" + h.name() + "': " + h.first() + " to " + h.last() + ").");
            }
            if (h.name().length() > MAX_NAME) {
                throw new InvalidInputException("calendar.holiday_invalid", "A holiday's name has at most " + MAX_NAME
                        + " characters.");
            }
        }
        holidays.stream().sorted(Comparator.comparing(Holiday::first)).forEach(h -> {
            var last = daysOff.lastEntry();
            if (last != null && !h.first().isAfter(last.getValue().plusDays(1))) {
                if (h.last().isAfter(last.getValue())) {
                    daysOff.put(last.getKey(), h.last());
                }
            } else {
                daysOff.put(h.first(), h.last());
            }
        });
    }

    /** Most holidays of a calendar (its import included). */
    public static final int MAX_HOLIDAYS = 1000;
    /** The first day a holiday may fall on. */
    public static final LocalDate FIRST_DAY = LocalDate.of(1900, 1, 1);
    /** The last day a holiday may fall on. */
    public static final LocalDate LAST_DAY = LocalDate.of(2999, 12, 31);
    /** A holiday's longest name, in UTF-16 characters (as Java and JSON count them). */
    public static final int MAX_NAME = 200;

    private BusinessCalendar(ZoneId zone) {
        this.zone = zone;
        this.shifts = List.of();
        this.holidays = List.of();
        this.allHours = true;
    }

    /** @return the calendar of a team that has none: every minute of every day is business time (24/7) */
    public static BusinessCalendar allHours(ZoneId zone) {
        return new BusinessCalendar(zone);
    }

    /**
     * @return true when {@code other} counts the same business time: the same zone, shifts and holidays (a calendar
     *         written again unchanged moves no clock, R57)
     */
    public boolean sameAs(BusinessCalendar other) {
        return other != null && zone.equals(other.zone) && shifts().equals(other.shifts())
                && holidays().equals(other.holidays());
    }

    /** @return the team's zone */
    public ZoneId zone() {
        return zone;
    }

    /** @return the shifts, as given */
    public List<Shift> shifts() {
        return shifts;
    }

    /** @return the holidays, as given */
    public List<Holiday> holidays() {
        return holidays;
    }

    /**
     * The instant at which {@code business} of working time has passed after {@code from}.
     *
     * @param business more than zero
     * @return that instant, or empty when it lies beyond {@link #HORIZON_DAYS} days (holidays cover everything)
     */
    public Optional<Instant> plus(Instant from, Duration business) {
        if (business.isNegative() || business.isZero()) {
            throw new IllegalArgumentException("business time must be positive: " + business);
        }
        if (allHours) {
            return Optional.of(from.plus(business));
        }
        Duration left = business;
        Instant counted = from; // everything before it is counted or not business time (a DST gap can make two
                                // windows overlap: 02:30 that does not exist is 03:30, inside a shift from 03:00)
        LocalDate day = from.atZone(zone).toLocalDate().minusDays(1); // yesterday's night shift may still run
        for (int i = 0; i <= HORIZON_DAYS; i++, day = day.plusDays(1)) {
            for (Instant[] w : windows(day)) {
                Instant start = w[0].isAfter(counted) ? w[0] : counted;
                if (!w[1].isAfter(start)) {
                    continue;
                }
                counted = w[1];
                Duration available = Duration.between(start, w[1]);
                if (left.compareTo(available) <= 0) {
                    return Optional.of(start.plus(left));
                }
                left = left.minus(available);
            }
        }
        return Optional.empty();
    }

    /**
     * @return the working time between {@code from} (inclusive) and {@code to} (exclusive); zero when {@code to} is
     *         not after {@code from}
     */
    public Duration between(Instant from, Instant to) {
        Duration sum = Duration.ZERO;
        if (!to.isAfter(from)) {
            return sum;
        }
        if (allHours) {
            return Duration.between(from, to);
        }
        LocalDate last = to.atZone(zone).toLocalDate();
        Instant counted = from; // as in plus: no minute twice where a DST gap makes two windows overlap
        for (LocalDate day = from.atZone(zone).toLocalDate().minusDays(1); !day.isAfter(last); day = day.plusDays(1)) {
            for (Instant[] w : windows(day)) {
                Instant s = w[0].isAfter(counted) ? w[0] : counted;
                Instant e = w[1].isBefore(to) ? w[1] : to;
                if (e.isAfter(s)) {
                    sum = sum.plus(Duration.between(s, e));
                    counted = e;
                }
            }
        }
        return sum;
    }

    /** @return true when {@code date} is a holiday */
    public boolean isHoliday(LocalDate date) {
        var range = daysOff.floorEntry(date);
        return range != null && !date.isAfter(range.getValue());
    }

    /** The working windows of the shifts that start on {@code day}, in order, as {start, end} instants. */
    List<Instant[]> windows(LocalDate day) {
        List<Shift> today = byDay.getOrDefault(day.getDayOfWeek(), List.of());
        if (today.isEmpty() || isHoliday(day)) {
            return List.of();
        }
        List<Instant[]> out = new ArrayList<>(today.size());
        for (Shift s : today) {
            Instant start = ZonedDateTime.of(day, s.start(), zone).toInstant();
            Instant end = ZonedDateTime.of(s.overnight() ? day.plusDays(1) : day, s.end(), zone).toInstant();
            if (end.isAfter(start)) {
                out.add(new Instant[] {start, end});
            }
        }
        return out;
    }

    /** Shifts as minutes of the week (Monday 00:00 = 0), wrapping after Sunday: no two may share a minute. */
    private void checkOverlaps() {
        int week = 7 * 1440;
        List<int[]> spans = new ArrayList<>();
        for (Shift s : shifts) {
            int from = (s.day().getValue() - 1) * 1440 + s.start().getHour() * 60 + s.start().getMinute();
            spans.add(new int[] {from, from + s.minutes()});
            if (from + s.minutes() > week) { // Sunday's night shift runs into Monday
                spans.add(new int[] {from - week, from + s.minutes() - week});
            }
        }
        spans.sort(Comparator.comparingInt(a -> a[0]));
        for (int i = 1; i < spans.size(); i++) {
            if (spans.get(i)[0] < spans.get(i - 1)[1]) {
                throw new InvalidInputException("calendar.interval_overlap", "Two shifts overlap, at "
                        + at(Math.max(0, spans.get(i)[0])) + ".");
            }
        }
    }

    private static String at(int weekMinute) {
        return DayOfWeek.of(weekMinute / 1440 % 7 + 1) + " " + LocalTime.of(weekMinute % 1440 / 60, weekMinute % 60);
    }
}
