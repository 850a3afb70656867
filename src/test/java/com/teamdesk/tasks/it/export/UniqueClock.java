package com.teamdesk.tasks.it.export;

import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Produces;
import jakarta.interceptor.Interceptor;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A CDI alternative to the application's clock for sweep tests: real time, but every reading is a
 * distinct microsecond (strictly increasing, PostgreSQL's precision), and readings made on a
 * thread running {@link #tagged} are recorded under that tag.
 *
 * <p>Why: a sweep takes {@code now} once and writes it into every row it hands over
 * ({@code dispatched_at = now}). With distinct readings, the value in a row names the one sweep
 * call that wrote it last, so "each row handed over exactly once" becomes countable: the rows
 * carrying a sweep's instants must number exactly what that sweep said it handled; a row handled
 * twice would be counted by one sweep but carry the other's instant.
 */
@Alternative
@Priority(Interceptor.Priority.APPLICATION + 10)
@ApplicationScoped
public class UniqueClock {
    private static final AtomicLong LAST_MICROS = new AtomicLong();
    private static final ThreadLocal<String> TAG = new ThreadLocal<>();
    private static final Map<String, List<Instant>> ISSUED = new ConcurrentHashMap<>();

    /** @return the distinct-reading clock every bean of the deployment gets */
    @Produces
    @ApplicationScoped
    public Clock clock() {
        return new Ticking();
    }

    /** Runs {@code body} with this thread's readings recorded under {@code tag}. */
    public static <T> T tagged(String tag, Callable<T> body) throws Exception {
        TAG.set(tag);
        try {
            return body.call();
        } finally {
            TAG.remove();
        }
    }

    /** @return the readings made under {@code tag} since the last {@link #forget()}, in order */
    public static List<Instant> issuedTo(String tag) {
        return List.copyOf(ISSUED.getOrDefault(tag, List.of()));
    }

    /** Forgets all recorded readings. */
    public static void forget() {
        ISSUED.clear();
    }

    /** Real time, strictly increasing by at least 1 µs per reading. */
    static final class Ticking extends Clock {
        @Override
        public Instant instant() {
            Instant now = Instant.now();
            long real = Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000L), now.getNano() / 1000);
            long micros = LAST_MICROS.updateAndGet(prev -> Math.max(prev + 1, real));
            Instant i = Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
            String tag = TAG.get();
            if (tag != null) {
                ISSUED.computeIfAbsent(tag, k -> new CopyOnWriteArrayList<>()).add(i);
            }
            return i;
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
