package com.teamdesk.tasks.team.sla;

import com.teamdesk.tasks.team.TicketService;
import com.teamdesk.tasks.team.calendar.BusinessCalendar;
import com.teamdesk.tasks.team.calendar.TeamCalendars;
import com.teamdesk.tasks.team.sla.SlaClock.Metric;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Issue 53 (R57): a ticket's SLA as its readers see it — each promise's state, the business time used and left now,
 * and its due and warning instants — for whoever may see the ticket.
 */
@ApplicationScoped
public class TicketSlas {
    @Inject
    TicketService tickets;

    @Inject
    SlaClocks clocks;

    @Inject
    TeamCalendars calendars;

    @Inject
    Clock clock;

    /**
     * A ticket's SLA at one instant.
     *
     * @param zone   the team's zone (UTC without a calendar), in which the due instants are also shown
     * @param at     the instant the figures are for (the database's clock)
     * @param clocks the promises, first response then resolution; empty when the ticket's priority has no policy
     */
    public record View(UUID ticketId, ZoneId zone, Instant at, List<ClockView> clocks) {
    }

    /**
     * One promise.
     *
     * @param used    business time used until {@code at}
     * @param left    business time left at {@code at}; negative once it has passed
     * @param overdue RUNNING past its due instant (its breach's escalation decides BREACHED)
     */
    public record ClockView(SlaClock clock, Duration used, Duration left, boolean overdue) {
    }

    /**
     * @return the ticket's SLA now
     * @throws com.teamdesk.tasks.common.NotFoundException not a member, or the ticket is not visible to the caller
     */
    public View read(UUID callerId, UUID teamId, UUID ticketId) {
        tickets.get(callerId, teamId, ticketId); // who may see it (404 otherwise)
        Instant now = clock.instant();
        var stored = calendars.find(teamId);
        BusinessCalendar calendar = stored.map(TeamCalendars.Stored::calendar)
                .orElseGet(() -> BusinessCalendar.allHours(ZoneOffset.UTC));
        Map<Metric, SlaClock> byMetric = clocks.clocks(ticketId);
        List<ClockView> views = byMetric.values().stream().map(c -> new ClockView(c, c.usedAt(now, calendar),
                c.leftAt(now, calendar), c.state() == SlaClock.State.RUNNING && c.due() != null && !c.due().isAfter(now)))
                .toList();
        return new View(ticketId, calendar.zone(), now, views);
    }
}
