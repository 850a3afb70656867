package com.teamdesk.tasks.team.sla;

import com.teamdesk.tasks.common.Page;
import com.teamdesk.tasks.team.Priority;
import com.teamdesk.tasks.team.TeamAccess;
import com.teamdesk.tasks.team.TicketService;
import com.teamdesk.tasks.team.calendar.BusinessCalendar;
import com.teamdesk.tasks.team.sla.SlaClock.Metric;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
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
    Clock clock;

    @Inject
    TeamAccess access;

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
     * One line of a team's breach board: a RUNNING promise, or a BREACHED one not yet kept late.
     *
     * @param atRisk  past its warning instant (or its warning passed before it last started counting)
     * @param overdue past its due instant: its breach escalates
     */
    public record BoardLine(UUID ticketId, String title, Priority priority, UUID assigneeId, SlaClock clock,
            Duration left, boolean atRisk, boolean overdue) {
    }

    /**
     * R58: the team's running promises, soonest due first, at most {@code limit} (an index scan of
     * {@code ticket_sla_clock_due_idx}, however many tickets the team has).
     *
     * @return the lines and the team's zone
     * @throws com.teamdesk.tasks.common.NotFoundException ({@code team.not_found}) not a member
     * @throws com.teamdesk.tasks.common.ForbiddenException ({@code team.staff_only}) a customer
     * @throws com.teamdesk.tasks.common.InvalidInputException ({@code page.limit}) a limit out of 1-500
     */
    public Board board(UUID callerId, UUID teamId, Integer limit) {
        access.requireStaff(teamId, callerId);
        int n = Page.limit(limit);
        Instant now = clock.instant();
        BusinessCalendar calendar = clocks.calendar(teamId);
        List<BoardLine> lines = clocks.running(teamId, n).stream().map(r -> {
            SlaClock c = r.clock();
            Duration left = left(c, now, calendar);
            boolean overdue = c.due() != null && !c.due().isAfter(now);
            boolean atRisk = overdue || c.warn() == null || !c.warn().isAfter(now);
            return new BoardLine(r.ticketId(), r.title(), r.priority(), r.assigneeId(), c, left, atRisk, overdue);
        }).toList();
        return new Board(teamId, calendar.zone(), now, lines);
    }

    /**
     * @return the business time left at {@code now}: negative past the due instant; for a BREACHED clock not yet
     *         settled, minus the business time since it broke
     */
    private static Duration left(SlaClock c, Instant now, BusinessCalendar calendar) {
        if (c.state() == SlaClock.State.BREACHED && c.due() != null) {
            return c.target().minus(c.used()).minus(now.isAfter(c.due()) ? calendar.between(c.due(), now) : Duration.ZERO);
        }
        return c.leftAt(now, calendar);
    }

    /** A team's breach board at one instant. */
    public record Board(UUID teamId, ZoneId zone, Instant at, List<BoardLine> lines) {
    }

    /**
     * @return the ticket's SLA now
     * @throws com.teamdesk.tasks.common.NotFoundException not a member, or the ticket is not visible to the caller
     */
    public View read(UUID callerId, UUID teamId, UUID ticketId) {
        tickets.get(callerId, teamId, ticketId); // who may see it (404 otherwise)
        Instant now = clock.instant();
        BusinessCalendar calendar = clocks.calendar(teamId);
        Map<Metric, SlaClock> byMetric = clocks.clocks(ticketId);
        List<ClockView> views = byMetric.values().stream().filter(c -> c.state() != SlaClock.State.CANCELLED).map(c -> new ClockView(c, c.usedAt(now, calendar),
                left(c, now, calendar), c.state() == SlaClock.State.RUNNING && c.due() != null && !c.due().isAfter(now)))
                .toList();
        return new View(ticketId, calendar.zone(), now, views);
    }
}
