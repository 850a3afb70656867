package com.teamdesk.tasks.team.sla;

import com.teamdesk.tasks.team.sla.SlaClock.Metric;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * CDI event fired synchronously by {@link SlaClocks} inside the transaction that moved a team's clocks (a ticket
 * change, a calendar or policy write), once per such change, listing every clock it left RUNNING with an instant to
 * escalate at (issue 53, R59). Observers' writes (the escalations' tasks) commit or roll back with the change.
 *
 * @param teamId the team of every clock listed
 * @param clocks the clocks, each at its new version
 */
public record SlaClockMoved(UUID teamId, List<Moved> clocks) {

    /**
     * One clock as it now runs.
     *
     * @param version the clock's version after the change: its escalations' fencing token
     * @param warnAt  when its warning is due, or null (passed already, or beyond the calendar's horizon)
     * @param dueAt   when it breaches, or null (beyond the calendar's horizon)
     */
    public record Moved(UUID ticketId, Metric metric, int version, Instant warnAt, Instant dueAt) {
    }
}
