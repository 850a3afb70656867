package com.teamdesk.tasks.web;

import com.teamdesk.tasks.team.TicketReply;
import com.teamdesk.tasks.team.sla.SlaClock;
import com.teamdesk.tasks.team.sla.SlaPolicy;
import com.teamdesk.tasks.team.sla.TicketSlas;
import jakarta.json.bind.annotation.JsonbNillable;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** The JSON forms of issue 53's SLA pieces (docs/api.md "SLA policies, replies and a ticket's clocks"). */
public final class SlaJson {
    private SlaJson() {
    }

    /** One priority's promise, in business minutes. */
    @JsonbPropertyOrder({"priority", "firstResponseMinutes", "resolutionMinutes", "warnPercent"})
    @Schema(name = "SlaPolicy")
    public record PolicyJson(String priority, int firstResponseMinutes, int resolutionMinutes, int warnPercent) {
        static PolicyJson of(SlaPolicy p) {
            return new PolicyJson(p.priority().name(), p.firstResponseMinutes(), p.resolutionMinutes(), p.warnPercent());
        }
    }

    /** The team's policies, one per priority that has a promise. */
    @Schema(name = "SlaPolicies")
    public record PoliciesJson(UUID teamId, List<PolicyJson> policies) {
        static PoliciesJson of(UUID teamId, List<SlaPolicy> policies) {
            return new PoliciesJson(teamId, policies.stream().map(PolicyJson::of).toList());
        }
    }

    /** A reply on a ticket. */
    @JsonbPropertyOrder({"id", "ticketId", "authorId", "fromStaff", "body", "createdAt"})
    @Schema(name = "TicketReply")
    public record ReplyJson(UUID id, UUID ticketId, UUID authorId, boolean fromStaff, String body, Instant createdAt) {
        static ReplyJson of(TicketReply r) {
            return new ReplyJson(r.id(), r.ticketId(), r.authorId(), r.fromStaff(), r.body(), r.createdAt());
        }
    }

    /**
     * A ticket's SLA now.
     *
     * @param zone the team's zone (UTC when it has no calendar: every minute counts)
     * @param at   the instant the figures are for
     */
    @JsonbPropertyOrder({"ticketId", "zone", "at", "clocks"})
    @Schema(name = "TicketSla")
    public record TicketSlaJson(UUID ticketId, String zone, Instant at, List<ClockJson> clocks) {
        static TicketSlaJson of(TicketSlas.View v) {
            return new TicketSlaJson(v.ticketId(), v.zone().getId(), v.at(),
                    v.clocks().stream().map(c -> ClockJson.of(c, v.zone())).toList());
        }
    }

    /**
     * One promise of a ticket.
     *
     * @param state       RUNNING, PAUSED (the ticket is PENDING), MET or BREACHED
     * @param usedMinutes business minutes used so far (whole minutes, rounded down)
     * @param leftMinutes business minutes left (negative when overdue)
     * @param dueAt       where the time left runs out on the calendar, while RUNNING
     * @param dueLocal    {@code dueAt} in the team's zone, with its offset
     * @param warnAt      the warning's instant, while RUNNING and before it
     * @param overdue     RUNNING past {@code dueAt}
     * @param version     moves with every change of the clock (its escalations' fencing token)
     */
    @JsonbNillable
    @JsonbPropertyOrder({"metric", "state", "targetMinutes", "warnPercent", "usedMinutes", "leftMinutes", "dueAt",
            "dueLocal", "warnAt", "overdue", "endedAt", "version"})
    @Schema(name = "SlaClock")
    public record ClockJson(String metric, String state, long targetMinutes, int warnPercent, long usedMinutes,
            long leftMinutes, Instant dueAt, String dueLocal, Instant warnAt, boolean overdue, Instant endedAt,
            int version) {
        static ClockJson of(TicketSlas.ClockView v, ZoneId zone) {
            SlaClock c = v.clock();
            return new ClockJson(c.metric().name(), c.state().name(), c.target().toMinutes(), c.warnPercent(),
                    v.used().toMinutes(), minutes(v.left()), c.due(),
                    c.due() == null ? null : c.due().atZone(zone).toOffsetDateTime().toString(), c.warn(), v.overdue(),
                    c.endedAt(), c.version());
        }

        /** Whole minutes toward zero, so that 30 s overdue is 0 and 90 s overdue is -1. */
        static long minutes(Duration d) {
            return d.getSeconds() / 60;
        }
    }

    /**
     * A team's breach board (R58): its running promises, soonest due first.
     *
     * @param zone the team's zone, in which {@code dueLocal} is shown
     */
    @JsonbPropertyOrder({"teamId", "zone", "at", "items"})
    @Schema(name = "SlaBoard")
    public record BoardJson(UUID teamId, String zone, Instant at, List<BoardLineJson> items) {
        static BoardJson of(TicketSlas.Board b) {
            return new BoardJson(b.teamId(), b.zone().getId(), b.at(), b.lines().stream().map(l -> new BoardLineJson(
                    l.ticketId(), l.title(), l.priority().name(), l.assigneeId(), l.clock().metric().name(),
                    l.clock().state().name(), ClockJson.minutes(l.left()), l.clock().due(), l.clock().due().atZone(b.zone()).toOffsetDateTime()
                            .toString(), l.clock().warn(), l.atRisk(), l.overdue(), l.clock().version())).toList());
        }
    }

    /**
     * One promise on the board: RUNNING, or BREACHED and not yet kept late.
     *
     * @param state   RUNNING or BREACHED
     * @param atRisk  past its warning
     * @param overdue past its due instant
     */
    @JsonbNillable
    @JsonbPropertyOrder({"ticketId", "title", "priority", "assigneeId", "metric", "state", "leftMinutes", "dueAt",
            "dueLocal", "warnAt", "atRisk", "overdue", "version"})
    @Schema(name = "SlaBoardLine")
    public record BoardLineJson(UUID ticketId, String title, String priority, UUID assigneeId, String metric,
            @Schema(enumeration = {"RUNNING", "BREACHED"}, description = "RUNNING: counting; BREACHED: its breach was"
                    + " escalated and what it waited for has not happened yet (R59)") String state,
            long leftMinutes, Instant dueAt, String dueLocal, Instant warnAt, boolean atRisk, boolean overdue,
            int version) {
    }
}
