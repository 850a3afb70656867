package com.teamdesk.tasks.task.escalation;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.UUID;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/**
 * R59's counters on {@code /metrics}: {@code teamdesk_sla_escalations_total{team, threshold, outcome}}, escalations
 * whose transaction committed on this instance, per team, {@code threshold} {@code warning} or {@code breach},
 * {@code outcome} {@code sent} or {@code superseded}. Per instance, as every counter (sum over instances); one series
 * per team that escalated since start.
 */
@ApplicationScoped
public class EscalationMetrics {
    private static final Metadata ESCALATIONS = Metadata.builder().withName("teamdesk_sla_escalations")
            .withDescription("SLA escalations committed on this instance, by team, threshold and outcome (R59)").build();

    @Inject
    MetricRegistry registry;

    /** An escalation's transaction committed. */
    void ended(UUID teamId, Threshold threshold, boolean superseded) {
        registry.counter(ESCALATIONS, new Tag("team", teamId.toString()),
                new Tag("threshold", threshold.name().toLowerCase(java.util.Locale.ROOT)),
                new Tag("outcome", superseded ? "superseded" : "sent")).inc();
    }
}
