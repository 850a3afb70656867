package com.teamdesk.tasks.task.escalation;

import com.teamdesk.tasks.team.sla.SlaClock.Metric;
import java.util.UUID;

/**
 * What one escalation escalates (R59): one threshold of one clock of a ticket at one version.
 *
 * @param version the clock's version it was started for: its fencing token
 */
public record EscalationParams(UUID ticketId, Metric metric, Threshold threshold, int version) {
    /** @return the task's identity in the ledger: one per (ticket, metric, threshold, version) */
    String onceKey() {
        return "sla:" + ticketId + ":" + metric + ":" + threshold + ":" + version;
    }
}
