package com.teamdesk.tasks.outbox;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/**
 * R60's figures on {@code /metrics}: {@code teamdesk_outbox_deliveries_total{channel, outcome}} (sends tried on this
 * instance: {@code sent}, {@code transient}, {@code permanent}, {@code unknown}, {@code lost}, and {@code deferred}
 * for rows given back while the server could not be reached), {@code teamdesk_outbox_pending} and
 * {@code teamdesk_outbox_oldest_due_seconds} (the whole outbox, read at most every 2 s).
 */
@ApplicationScoped
public class OutboxMetrics {
    private static final Metadata DELIVERIES = Metadata.builder().withName("teamdesk_outbox_deliveries")
            .withDescription("Outbox sends tried on this instance, by channel and outcome (R60)").build();
    private static final long DEPTH_TTL_MS = 2_000;

    @Inject
    MetricRegistry registry;

    @Inject
    OutboxStore store;

    @Inject
    Clock clock;

    private final AtomicReference<double[]> depth = new AtomicReference<>(new double[] {0, 0});
    private volatile long depthAt;

    void init(@Observes @Initialized(ApplicationScoped.class) Object ignored) {
        for (SendOutcome o : SendOutcome.values()) {
            counter(o.name());
        }
        counter("deferred");
        registry.gauge(Metadata.builder().withName("teamdesk_outbox_pending")
                .withDescription("Outbox rows waiting to be sent (R60)").build(), this, m -> m.depth()[0]);
        registry.gauge(Metadata.builder().withName("teamdesk_outbox_oldest_due_seconds")
                .withDescription("How long the oldest due outbox row has waited (R60)").build(), this, m -> m.depth()[1]);
    }

    void delivered(SendOutcome outcome) {
        counter(outcome.name()).inc();
    }

    void deferred(int rows) {
        counter("deferred").inc(rows);
    }

    private org.eclipse.microprofile.metrics.Counter counter(String outcome) {
        return registry.counter(DELIVERIES, new Tag("channel", "email"),
                new Tag("outcome", outcome.toLowerCase(Locale.ROOT)));
    }

    private double[] depth() {
        long t = System.currentTimeMillis();
        if (t - depthAt > DEPTH_TTL_MS) {
            try {
                depth.set(store.depth(clock.instant()));
            } catch (RuntimeException e) {
                return depth.get(); // the database is away: the last figure, not an error on /metrics
            } finally {
                depthAt = t;
            }
        }
        return depth.get();
    }
}
