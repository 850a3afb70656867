package com.teamdesk.tasks.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;

/**
 * Produces the application {@link Clock} (UTC): PostgreSQL's time, read as this JVM's clock plus its
 * measured offset ({@link DatabaseClock}, issue 28), and this JVM's own clock ({@link SystemTime}), which only
 * the offset measurement reads. Business logic never calls {@code Instant.now()}.
 */
@ApplicationScoped
public class ClockProducer {
    /** @return this JVM's clock in UTC */
    @Produces
    @SystemTime
    @ApplicationScoped
    public Clock systemClock() {
        return Clock.systemUTC();
    }

    /**
     * @param database the offset to PostgreSQL
     * @return the application clock: the JVM's clock corrected to PostgreSQL's
     */
    @Produces
    @ApplicationScoped
    public Clock clock(DatabaseClock database) {
        return database.clock();
    }
}
