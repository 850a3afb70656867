package com.teamdesk.tasks.team.calendar;

import com.teamdesk.tasks.common.ClientText;
import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.team.calendar.BusinessCalendar.Holiday;
import java.io.IOException;
import java.io.StringReader;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.Temporal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.fortuna.ical4j.data.CalendarBuilder;
import net.fortuna.ical4j.data.ParserException;
import net.fortuna.ical4j.model.Calendar;
import net.fortuna.ical4j.model.Property;
import net.fortuna.ical4j.model.component.CalendarComponent;
import net.fortuna.ical4j.model.component.VEvent;
import net.fortuna.ical4j.model.property.DtEnd;
import net.fortuna.ical4j.model.property.DtStart;

/**
 * Issue 53 (R55): the holidays of an uploaded iCalendar file (RFC 5545), read by iCal4j — never a parser of ours,
 * and never a URL fetched by the server (ical4j.properties turns its time zone updates off).
 *
 * <p>Each {@code VEVENT} is one holiday named by its {@code SUMMARY}: an all-day event ({@code DTSTART;VALUE=DATE})
 * covers its dates up to the day before {@code DTEND} (exclusive, as RFC 5545 says), or its one day without it; an
 * event with times covers the team's local dates from its start to the last instant before its end. A recurring event
 * ({@code RRULE}) is refused rather than read as its first occurrence: holiday feeds list each year's days.
 */
public final class HolidayImport {
    /** Most events of one file. */
    public static final int MAX_EVENTS = BusinessCalendar.MAX_HOLIDAYS;

    private HolidayImport() {
    }

    /**
     * @param ics  the file's text
     * @param zone the team's zone, for events with times
     * @return its holidays, in the file's order
     * @throws InvalidInputException ({@code calendar.ical_malformed}) not an iCalendar file iCal4j can read, an event
     *                               without a start, one that ends before it starts, a recurring one, more than
     *                               {@link #MAX_EVENTS} events, or none at all
     */
    public static List<Holiday> read(String ics, ZoneId zone) {
        Calendar calendar;
        try {
            calendar = new CalendarBuilder().build(new StringReader(withoutTimeZones(ics)));
        } catch (ParserException e) {
            throw malformed("The file is not iCalendar (RFC 5545): " + ClientText.echo(String.valueOf(e.getMessage()))
                    + ".");
        } catch (IOException | RuntimeException e) {
            throw malformed("The file is not iCalendar (RFC 5545) that can be read.");
        }
        List<Holiday> out = new ArrayList<>();
        List<CalendarComponent> components = calendar.getComponents();
        int n = 0;
        for (CalendarComponent c : components) {
            if (!(c instanceof VEvent event)) {
                continue;
            }
            if (++n > MAX_EVENTS) {
                throw malformed("The file has more than " + MAX_EVENTS + " events.");
            }
            out.add(holiday(event, n, zone));
        }
        if (out.isEmpty()) {
            throw malformed("The file has no VEVENT: no holiday to import.");
        }
        return out;
    }

    private static Holiday holiday(VEvent event, int n, ZoneId zone) {
        String where = "VEVENT " + n;
        try {
            return read(event, where, zone);
        } catch (InvalidInputException e) {
            throw e;
        } catch (RuntimeException e) { // whatever else iCal4j could not make of it is the file's fault, not ours
            throw malformed(where + " could not be read (" + e.getClass().getSimpleName() + ").");
        }
    }

    private static Holiday read(VEvent event, String where, ZoneId zone) {
        if (event.getProperty(Property.RRULE).isPresent() || event.getProperty(Property.RDATE).isPresent()) {
            throw malformed(where + " repeats (RRULE or RDATE); list each holiday's days instead.");
        }
        Optional<DtStart<Temporal>> start = event.getProperty(Property.DTSTART);
        if (start.isEmpty() || start.get().getDate() == null) {
            throw malformed(where + " has no DTSTART.");
        }
        Temporal from = start.get().getDate();
        // DTEND, else DTSTART + DURATION (iCal4j's own derivation, getEndDate(true), fails on a date without DTEND)
        Temporal until = event.<Temporal>getEndDate(false).map(DtEnd::getDate).orElse(null);
        if (until == null) {
            until = event.<net.fortuna.ical4j.model.property.Duration>getProperty(Property.DURATION)
                    .map(d -> from.plus(d.getDuration())).orElse(null);
        }
        LocalDate first;
        LocalDate last;
        if (from instanceof LocalDate day) {
            first = day;
            last = until instanceof LocalDate u ? u.minusDays(1) : day;
        } else {
            Instant a = instant(from, zone, where);
            Instant b = until != null ? instant(until, zone, where) : a;
            first = a.atZone(zone).toLocalDate();
            last = (b.isAfter(a) ? b.minusNanos(1) : a).atZone(zone).toLocalDate();
        }
        if (last.isBefore(first)) {
            throw malformed(where + " ends before it starts.");
        }
        String name = event.getProperty(Property.SUMMARY).map(Property::getValue).orElse("");
        return new Holiday(first, last, clean(name));
    }

    private static Instant instant(Temporal t, ZoneId zone, String where) {
        if (t instanceof ZonedDateTime z) {
            return z.toInstant();
        }
        if (t instanceof OffsetDateTime o) {
            return o.toInstant();
        }
        if (t instanceof Instant i) {
            return i;
        }
        if (t instanceof LocalDateTime l) { // floating time: the team's
            return l.atZone(zone).toInstant();
        }
        if (t instanceof LocalDate d) {
            return d.atStartOfDay(zone).toInstant();
        }
        throw malformed(where + " has a date iCal4j read as " + t.getClass().getSimpleName() + ".");
    }

    /**
     * A name as stored: no control characters or unpaired surrogates, at most {@link BusinessCalendar#MAX_NAME} UTF-16
     * characters (the measure the calendar checks), never cutting a character in two.
     */
    private static String clean(String name) {
        StringBuilder b = new StringBuilder();
        name.codePoints().filter(cp -> !Character.isISOControl(cp) && !(cp >= 0xD800 && cp <= 0xDFFF))
                .forEach(cp -> {
                    if (b.length() + Character.charCount(cp) <= BusinessCalendar.MAX_NAME) {
                        b.appendCodePoint(cp);
                    }
                });
        return b.toString().strip();
    }

    /**
     * The file without its {@code VTIMEZONE} components (lines unfolded first, RFC 5545 3.1): iCal4j builds a zone's
     * rules while it parses one, and a hostile definition ({@code RRULE:FREQ=SECONDLY} since 1601) costs minutes of CPU
     * or all the memory, and every definition stays registered in the JVM for ever. A holiday is read in the team's
     * zone (all-day events) or at its instant (UTC times); a {@code TZID} that names an IANA zone still works.
     */
    static String withoutTimeZones(String ics) {
        // every line break a parser might honour (CRLF, LF, a bare CR) is one, before the folds are undone
        String unfolded = ics.replace("\r\n", "\n").replace('\r', '\n').replace("\n ", "").replace("\n\t", "");
        StringBuilder out = new StringBuilder(unfolded.length());
        int depth = 0;
        for (String line : unfolded.split("\n", -1)) {
            String l = line.strip().toUpperCase(java.util.Locale.ROOT);
            if (l.startsWith("BEGIN") && l.endsWith(":VTIMEZONE")) { // BEGIN;X-PARAM=…:VTIMEZONE too
                depth++;
            } else if (depth > 0 && l.startsWith("END") && l.endsWith(":VTIMEZONE")) {
                depth--;
            } else if (depth == 0) {
                out.append(line).append("\r\n");
            }
        }
        return out.toString();
    }

    private static InvalidInputException malformed(String detail) {
        return new InvalidInputException("calendar.ical_malformed", detail);
    }
}
