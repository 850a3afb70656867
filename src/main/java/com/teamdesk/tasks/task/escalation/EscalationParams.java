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
        return group() + ":" + threshold + ":" + version;
    }

    /** @return the escalations of one clock: a newer version's replace the older ones still waiting */
    String group() {
        return "sla:" + ticketId + ":" + metric;
    }

    /**
     * @return true when {@code c} is the clock this escalation is for: the breach of version v while the clock RUNNING
     *         at v (it breaks it) or BREACHED at v + 1 (a change broke it at its due instant, R59); the warning of v while
     *         RUNNING at v, its warning not sent. Versions only grow: once false, false for good.
     */
    boolean current(com.teamdesk.tasks.team.sla.SlaClock c) {
        var running = com.teamdesk.tasks.team.sla.SlaClock.State.RUNNING;
        return threshold == Threshold.BREACH
                ? (c.state() == running && c.version() == version)
                        || (c.state() == com.teamdesk.tasks.team.sla.SlaClock.State.BREACHED && c.version() == version + 1)
                : c.state() == running && c.version() == version && !c.warned();
    }
}
