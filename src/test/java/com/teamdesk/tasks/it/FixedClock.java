package com.teamdesk.tasks.it;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Produces;
import jakarta.interceptor.Interceptor;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * A CDI alternative to the application's {@code ClockProducer}: every bean of a deployment that
 * lists this class sees time stand still at {@link #NOW}.
 */
@Alternative
@Priority(Interceptor.Priority.APPLICATION + 10)
@ApplicationScoped
public class FixedClock {
    /** The instant the clock shows. */
    public static final Instant NOW = Instant.parse("2031-02-03T04:05:06.789Z");

    /** @return a clock fixed at {@link #NOW} */
    @Produces
    @ApplicationScoped
    public Clock clock() {
        return Clock.fixed(NOW, ZoneOffset.UTC);
    }
}
