package com.teamdesk.tasks.web;

import com.teamdesk.tasks.team.calendar.BusinessCalendar;
import com.teamdesk.tasks.team.calendar.TeamCalendars;
import jakarta.json.bind.annotation.JsonbNillable;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A team's calendar as the API shows it (issue 53, R55; docs/api.md "Team calendars").
 *
 * @param zone          the team's IANA time zone, in which every shift and holiday is read
 * @param shifts        the working intervals of the week; {@code end} not after {@code start} runs overnight
 * @param holidays      days off, {@code first} to {@code last} inclusive
 * @param weeklyMinutes the working minutes of a week without holidays (local time)
 * @param version       1 for the first calendar, +1 with every change; also the {@code ETag}
 */
@JsonbNillable
@JsonbPropertyOrder({"teamId", "zone", "shifts", "holidays", "weeklyMinutes", "version", "updatedAt", "updatedBy"})
@Schema(name = "Calendar")
public record CalendarJson(UUID teamId, String zone, List<ShiftJson> shifts, List<HolidayJson> holidays,
        int weeklyMinutes, int version, Instant updatedAt, UUID updatedBy) {

    /** A working interval: a weekday (MONDAY ... SUNDAY) and local times HH:MM. */
    @JsonbPropertyOrder({"day", "start", "end"})
    @Schema(name = "CalendarShift")
    public record ShiftJson(String day, String start, String end) {
    }

    /** Days off, local dates YYYY-MM-DD, inclusive. */
    @JsonbPropertyOrder({"first", "last", "name"})
    @Schema(name = "CalendarHoliday")
    public record HolidayJson(String first, String last, String name) {
    }

    /** @return the JSON form of a stored calendar */
    static CalendarJson of(TeamCalendars.Stored s) {
        BusinessCalendar c = s.calendar();
        return new CalendarJson(s.teamId(), c.zone().getId(),
                c.shifts().stream().map(x -> new ShiftJson(x.day().name(), x.start().toString(), x.end().toString()))
                        .toList(),
                c.holidays().stream().map(h -> new HolidayJson(h.first().toString(), h.last().toString(), h.name()))
                        .toList(),
                c.shifts().stream().mapToInt(BusinessCalendar.Shift::minutes).sum(), s.version(), s.updatedAt(),
                s.updatedBy());
    }
}
