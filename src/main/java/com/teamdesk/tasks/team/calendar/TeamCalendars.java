package com.teamdesk.tasks.team.calendar;

import com.teamdesk.tasks.common.ClientText;
import com.teamdesk.tasks.common.ClientValues;
import com.teamdesk.tasks.common.ForbiddenException;
import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.common.PreconditionFailedException;
import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.team.JdbcTeamWrites;
import com.teamdesk.tasks.team.TeamAccess;
import com.teamdesk.tasks.team.calendar.BusinessCalendar.Holiday;
import com.teamdesk.tasks.team.calendar.BusinessCalendar.Shift;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.transaction.Transactional;
import java.io.StringReader;
import java.time.Clock;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Issue 53 (R55): a team's calendar — its zone, shifts and holidays — read by the team's staff, set by its owners.
 * Every write replaces the whole calendar in one statement and moves its {@code version}; a write may name the version
 * it read ({@code If-Match}), and then fails with 412 when another write came between. A write takes the team lock and
 * fires {@link CalendarChanged} in its transaction (the SLA clocks of the team are computed again, R57).
 */
@ApplicationScoped
public class TeamCalendars {
    /** The body's fields ({@code PUT .../calendar}). */
    public static final Set<String> FIELDS = Set.of("zone", "shifts", "holidays");
    /** Most shifts in a week. */
    public static final int MAX_SHIFTS = 100;
    /** Most holidays of a calendar ({@link BusinessCalendar#MAX_HOLIDAYS}). */
    public static final int MAX_HOLIDAYS = BusinessCalendar.MAX_HOLIDAYS;
    /** Longest holiday name, in characters. */
    public static final int MAX_NAME = BusinessCalendar.MAX_NAME;

    private static final Jdbc.Table TABLE = Jdbc.Table.of("team_calendar");
    private static final Pattern TIME = Pattern.compile("([01][0-9]|2[0-3]):[0-5][0-9]");
    private static final Pattern DATE = Pattern.compile("[0-9]{4}-[0-9]{2}-[0-9]{2}");
    /** An IANA zone's name (never a zone a library registered at run time, such as iCal4j's {@code ical4j~…}). */
    private static final Pattern IANA = Pattern.compile("[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*");
    private static final Set<String> SHIFT_FIELDS = Set.of("day", "start", "end");
    private static final Set<String> HOLIDAY_FIELDS = Set.of("first", "last", "name");

    @Inject
    Jdbc jdbc;

    @Inject
    TeamAccess access;

    @Inject
    JdbcTeamWrites teamWrites;

    @Inject
    Event<CalendarChanged> changed;

    @Inject
    Clock clock;

    /**
     * A calendar as stored.
     *
     * @param version   1 for the first, +1 with every write
     * @param updatedAt the database's time of the last write
     */
    public record Stored(UUID teamId, BusinessCalendar calendar, int version, Instant updatedAt, UUID updatedBy) {
    }

    /**
     * @return the team's calendar
     * @throws NotFoundException ({@code team.not_found}) the caller is not a member; ({@code calendar.not_found}) the
     *                           team has none yet
     * @throws ForbiddenException ({@code team.staff_only}) a customer
     */
    public Stored read(UUID callerId, UUID teamId) {
        access.requireStaff(teamId, callerId);
        return find(teamId).orElseThrow(() -> new NotFoundException("calendar.not_found", "The team has no calendar"
                + " yet; an owner sets one with PUT."));
    }

    /** @return the team's calendar, for the engine (no caller: no check) */
    public Optional<Stored> find(UUID teamId) {
        return jdbc.queryOne(TABLE, "calendar read", "SELECT zone, shifts::text, holidays::text, version, updated_at,"
                + " updated_by FROM team_calendar WHERE team_id = ?", rs -> new Stored(teamId,
                        new BusinessCalendar(ZoneId.of(rs.getString(1)), shifts(read(rs.getString(2))),
                                holidays(read(rs.getString(3)))), rs.getInt(4), Jdbc.instant(rs, 5), Jdbc.uuid(rs, 6)),
                teamId);
    }

    /**
     * Sets the whole calendar from a body {@code {zone, shifts: [{day, start, end}], holidays: [{first, last, name}]}}.
     *
     * @param ifMatch the version the caller read, or null to write whatever is there
     * @return the calendar as stored now
     * @throws InvalidInputException every malformed piece, with its code ({@code calendar.zone_unknown},
     *                               {@code calendar.interval_invalid}, {@code calendar.interval_overlap},
     *                               {@code calendar.no_working_time}, {@code calendar.holiday_invalid}); nothing stored
     * @throws ForbiddenException    ({@code calendar.owner_only}) a caller who is not an owner
     * @throws PreconditionFailedException ({@code calendar.version_mismatch}) {@code ifMatch} is not the current version
     */
    @Transactional
    public Stored replace(UUID callerId, UUID teamId, JsonObject body, Integer ifMatch) {
        requireOwner(teamId, callerId);
        BusinessCalendar calendar = parse(body);
        teamWrites.lockTeam(teamId); // R57: the clocks it moves are moved by ticket changes under this lock too
        return write(callerId, teamId, calendar, ifMatch, find(teamId).map(Stored::calendar));
    }

    private static NotFoundException noneToImportInto() {
        return new NotFoundException("calendar.not_found", "The team has no calendar yet; set its shifts first (PUT),"
                + " then import its holidays.");
    }

    /**
     * Adds the holidays of an iCalendar file to the team's calendar (the same day range and name once), as
     * {@link HolidayImport} reads them in the team's zone.
     *
     * @param ics the file's text
     * @throws NotFoundException ({@code calendar.not_found}) the team has no calendar to add them to
     * @throws ForbiddenException ({@code calendar.owner_only}) a caller who is not an owner, before the file is read
     * @throws InvalidInputException ({@code calendar.ical_malformed}, {@code calendar.holiday_invalid})
     */
    @Transactional
    public Stored addHolidays(UUID callerId, UUID teamId, String ics, Integer ifMatch) {
        requireOwner(teamId, callerId);
        teamWrites.lockTeam(teamId); // the calendar read here is the one written over: no change comes between
        Stored now = find(teamId).orElseThrow(TeamCalendars::noneToImportInto);
        List<Holiday> imported = HolidayImport.read(ics, now.calendar().zone());
        Set<Holiday> all = new LinkedHashSet<>(now.calendar().holidays());
        all.addAll(imported);
        if (all.size() > MAX_HOLIDAYS) {
            throw new InvalidInputException("calendar.holiday_invalid", "A calendar has at most " + MAX_HOLIDAYS
                    + " holidays; this import would make " + all.size() + ".");
        }
        BusinessCalendar calendar = new BusinessCalendar(now.calendar().zone(), now.calendar().shifts(),
                List.copyOf(all));
        return write(callerId, teamId, calendar, ifMatch, Optional.of(now.calendar()));
    }

    /** The write, under the team lock the caller took before it read {@code before}, the calendar until now. */
    private Stored write(UUID callerId, UUID teamId, BusinessCalendar calendar, Integer ifMatch,
            Optional<BusinessCalendar> before) {
        if (before.isEmpty() && ifMatch != null) { // RFC 9110 13.1.1: If-Match never matches what does not exist
            throw new PreconditionFailedException("calendar.version_mismatch", "The team has no calendar yet; send no"
                    + " If-Match to set its first.");
        }
        String shifts = shiftsJson(calendar.shifts()).toString();
        String holidays = holidaysJson(calendar.holidays()).toString();
        String sql = "INSERT INTO team_calendar (team_id, zone, shifts, holidays, updated_by) VALUES (?, ?, ?::jsonb,"
                + " ?::jsonb, ?) ON CONFLICT (team_id) DO UPDATE SET zone = EXCLUDED.zone, shifts = EXCLUDED.shifts,"
                + " holidays = EXCLUDED.holidays, updated_by = EXCLUDED.updated_by, updated_at = now(),"
                + " version = team_calendar.version + 1 WHERE ?::integer IS NULL OR team_calendar.version = ?"
                + " RETURNING version, updated_at";
        Optional<Object[]> row = jdbc.queryOne(TABLE, "calendar write", sql,
                rs -> new Object[] {rs.getInt(1), Jdbc.instant(rs, 2)}, teamId, calendar.zone().getId(), shifts,
                holidays, callerId, ifMatch, ifMatch);
        if (row.isEmpty()) {
            throw new PreconditionFailedException("calendar.version_mismatch", "The calendar changed since version "
                    + ifMatch + "; read it again.");
        }
        Stored stored = new Stored(teamId, calendar, (Integer) row.get()[0], (Instant) row.get()[1], callerId);
        changed.fire(new CalendarChanged(teamId, before, calendar, clock.instant()));
        return stored;
    }

    private void requireOwner(UUID teamId, UUID callerId) {
        access.requireOwner(teamId, callerId, "calendar.owner_only", "its calendar");
    }

    /** Reads a body strictly; each malformed piece is refused with its own code. */
    static BusinessCalendar parse(JsonObject body) {
        String zoneText = Jsons.string(body, "zone");
        if (zoneText == null || !IANA.matcher(zoneText).matches() || !ZoneId.getAvailableZoneIds().contains(zoneText)) {
            throw new InvalidInputException("calendar.zone_unknown", zoneText == null ? "zone is required: an IANA"
                    + " time zone such as Europe/Berlin." : "'" + ClientText.echo(zoneText) + "' is not an IANA time"
                    + " zone (e.g. Asia/Shanghai).");
        }
        JsonArray shifts = array(body, "shifts", MAX_SHIFTS, "calendar.interval_invalid");
        JsonArray holidays = body.containsKey("holidays") && !body.isNull("holidays")
                ? array(body, "holidays", MAX_HOLIDAYS, "calendar.holiday_invalid") : JsonValue.EMPTY_JSON_ARRAY;
        return new BusinessCalendar(ZoneId.of(zoneText), shifts(shifts), holidays(holidays));
    }

    private static JsonArray array(JsonObject body, String key, int max, String code) {
        JsonValue v = body.get(key);
        if (!(v instanceof JsonArray a)) {
            throw new InvalidInputException(code, key + " must be an array.");
        }
        if (a.size() > max) {
            throw new InvalidInputException(code, key + " has " + a.size() + " entries; at most " + max + ".");
        }
        return a;
    }

    private static List<Shift> shifts(JsonArray a) {
        List<Shift> out = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++) {
            JsonObject o = entry(a.get(i), "shifts[" + i + "]", SHIFT_FIELDS, "calendar.interval_invalid");
            String where = "shifts[" + i + "]";
            out.add(new Shift(day(text(o, "day", where, "calendar.interval_invalid"), where),
                    time(text(o, "start", where, "calendar.interval_invalid"), where + ".start"),
                    time(text(o, "end", where, "calendar.interval_invalid"), where + ".end")));
        }
        return out;
    }

    private static List<Holiday> holidays(JsonArray a) {
        List<Holiday> out = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++) {
            String where = "holidays[" + i + "]";
            JsonObject o = entry(a.get(i), where, HOLIDAY_FIELDS, "calendar.holiday_invalid");
            LocalDate first = date(text(o, "first", where, "calendar.holiday_invalid"), where + ".first");
            LocalDate last = o.containsKey("last") && !o.isNull("last")
                    ? date(text(o, "last", where, "calendar.holiday_invalid"), where + ".last") : first;
            String name = o.containsKey("name") && !o.isNull("name") ? text(o, "name", where, "calendar.holiday_invalid")
                    : "";
            if (name.length() > MAX_NAME) {
                throw new InvalidInputException("calendar.holiday_invalid", where + ".name must be text of at most "
                        + MAX_NAME + " characters.");
            }
            out.add(new Holiday(first, last, name));
        }
        return out;
    }

    private static JsonObject entry(JsonValue v, String where, Set<String> fields, String code) {
        if (!(v instanceof JsonObject o)) {
            throw new InvalidInputException(code, where + " must be an object.");
        }
        for (String k : o.keySet()) {
            if (!fields.contains(k)) {
                throw new InvalidInputException(code, where + " has the unknown field '" + ClientText.echo(k)
                        + "'; known: " + new java.util.TreeSet<>(fields) + ".");
            }
        }
        return o;
    }

    private static String text(JsonObject o, String key, String where, String code) {
        JsonValue v = o.get(key);
        if (!(v instanceof JsonString s)) {
            throw new InvalidInputException(code, where + "." + key + " must be a string.");
        }
        return s.getString();
    }

    private static DayOfWeek day(String text, String where) {
        DayOfWeek day = ClientValues.exactEnumOf(DayOfWeek.class, text);
        if (day != null) {
            return day;
        }
        throw new InvalidInputException("calendar.interval_invalid", where + ".day '" + ClientText.echo(text)
                + "' is not one of MONDAY ... SUNDAY.");
    }

    private static LocalTime time(String text, String where) {
        if (!TIME.matcher(text).matches()) {
            throw new InvalidInputException("calendar.interval_invalid", where + " '" + ClientText.echo(text)
                    + "' is not a time HH:MM (00:00 to 23:59).");
        }
        return LocalTime.parse(text);
    }

    private static LocalDate date(String text, String where) {
        try {
            if (DATE.matcher(text).matches()) {
                return LocalDate.parse(text);
            }
        } catch (DateTimeParseException e) {
            // refused below
        }
        throw new InvalidInputException("calendar.holiday_invalid", where + " '" + ClientText.echo(text)
                + "' is not a date YYYY-MM-DD.");
    }

    private static JsonArray read(String json) {
        try (var r = Jsons.PROVIDER.createReader(new StringReader(json))) {
            return r.readArray();
        }
    }

    /** @return the shifts as the API shows them */
    public static JsonArray shiftsJson(List<Shift> shifts) {
        JsonArrayBuilder b = Jsons.PROVIDER.createArrayBuilder();
        shifts.forEach(s -> b.add(Jsons.PROVIDER.createObjectBuilder().add("day", s.day().name())
                .add("start", s.start().toString()).add("end", s.end().toString())));
        return b.build();
    }

    /** @return the holidays as the API shows them */
    public static JsonArray holidaysJson(List<Holiday> holidays) {
        JsonArrayBuilder b = Jsons.PROVIDER.createArrayBuilder();
        holidays.forEach(h -> b.add(Jsons.PROVIDER.createObjectBuilder().add("first", h.first().toString())
                .add("last", h.last().toString()).add("name", h.name())));
        return b.build();
    }
}
