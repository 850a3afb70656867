package com.teamdesk.tasks.platform;

import jakarta.annotation.PostConstruct;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;

/**
 * Measures this instance's clock offset to PostgreSQL ({@link DatabaseClock}, issue 28) at startup, before
 * the worker and the timers start (they are {@code @DependsOn} it), and every minute; exports it as the
 * gauge {@code teamdesk_clock_offset_seconds} (PostgreSQL minus this JVM). A non-persistent timer, like
 * the sweeps; a failed measurement keeps the last offset.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class ClockSync {

    @Inject
    DatabaseClock clock;

    @Inject
    MetricRegistry registry;

    @PostConstruct
    void atStartup() {
        clock.measure();
        registry.gauge(Metadata.builder().withName("teamdesk_clock_offset_seconds")
                .withDescription("PostgreSQL's clock minus this instance's, as last measured (issue 28)").build(),
                clock, c -> c.offset().toNanos() / 1e9);
    }

    @Schedule(second = "7", minute = "*", hour = "*", persistent = false, info = "clock offset to PostgreSQL")
    void everyMinute() {
        clock.measure();
    }
}
