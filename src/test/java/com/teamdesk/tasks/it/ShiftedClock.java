package com.teamdesk.tasks.it;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Produces;
import jakarta.interceptor.Interceptor;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A CDI alternative to the application's clock for tests of time rules (R24 scheduled tasks, R26
 * run timeout): real time plus an offset the test moves forward with {@link #advance}, so "an hour
 * later" or "past the timeout" is reached at once, with no sleep. Reset it in {@code @AfterEach}.
 */
@Alternative
@Priority(Interceptor.Priority.APPLICATION + 10)
@ApplicationScoped
public class ShiftedClock {
    private static final AtomicReference<Duration> OFFSET = new AtomicReference<>(Duration.ZERO);

    /** @return the shifted clock every bean of the deployment gets */
    @Produces
    @ApplicationScoped
    public Clock clock() {
        return new Shifted();
    }

    /** Moves the application's time forward by {@code by}. */
    public static void advance(Duration by) {
        OFFSET.updateAndGet(o -> o.plus(by));
    }

    /** Back to real time. */
    public static void reset() {
        OFFSET.set(Duration.ZERO);
    }

    /** Real time plus {@link #OFFSET}, in UTC. */
    static final class Shifted extends Clock {
        @Override
        public Instant instant() {
            return Instant.now().plus(OFFSET.get());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return Clock.fixed(instant(), zone);
        }
    }
}
