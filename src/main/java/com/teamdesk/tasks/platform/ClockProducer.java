package com.teamdesk.tasks.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Clock;

/** Produces the application {@link Clock} (UTC). Business logic never calls {@code Instant.now()}. */
@ApplicationScoped
public class ClockProducer {
    /** @return the system clock in UTC */
    @Produces
    @ApplicationScoped
    public Clock clock() {
        return Clock.systemUTC();
    }
}
