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
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one test clock (issue 29): a CDI alternative to the application's {@code Clock} that every bean of a
 * deployment listing this class gets. Real time by default; a test (in the server, in {@code @BeforeEach} or
 * the test itself) can
 * <ul>
 * <li>stop it at an instant ({@link #fixAt}, e.g. {@link #FIXED}),</li>
 * <li>move it forward ({@link #advance}) so "an hour later" or "past the timeout" is reached with no sleep,</li>
 * <li>make every reading a distinct microsecond, strictly increasing (PostgreSQL's precision), and record
 * the readings made on a thread running {@link #tagged} ({@link #uniqueReadings}): a sweep writes the
 * {@code now} it read once into every row it hands over, so with distinct readings the value in a row names
 * the one sweep call that wrote it, and "each row handed over exactly once" becomes countable.</li>
 * </ul>
 * {@link #reset} goes back to real time; call it in {@code @AfterEach}. The state is static: one per
 * deployment (each has its own class loader).
 */
@Alternative
@Priority(Interceptor.Priority.APPLICATION + 10)
@ApplicationScoped
public class TestClock {
    /** An instant far from today, for tests that stop the clock. */
    public static final Instant FIXED = Instant.parse("2031-02-03T04:05:06.789Z");

    private static final AtomicReference<Instant> FIXED_AT = new AtomicReference<>();
    private static final AtomicReference<Duration> OFFSET = new AtomicReference<>(Duration.ZERO);
    private static volatile boolean unique;
    private static final AtomicLong LAST_MICROS = new AtomicLong();
    private static final ThreadLocal<String> TAG = new ThreadLocal<>();
    private static final Map<String, List<Instant>> ISSUED = new ConcurrentHashMap<>();

    /** @return the test clock every bean of the deployment gets */
    @Produces
    @ApplicationScoped
    public Clock clock() {
        return new Testing();
    }

    /** Stops the application's time at {@code at} (plus any {@link #advance}). */
    public static void fixAt(Instant at) {
        FIXED_AT.set(at);
    }

    /** Moves the application's time forward by {@code by}. */
    public static void advance(Duration by) {
        OFFSET.updateAndGet(o -> o.plus(by));
    }

    /** Every reading from now on is a distinct microsecond, strictly increasing. */
    public static void uniqueReadings() {
        unique = true;
    }

    /** Back to real time: not fixed, no offset, readings as they come; recorded readings forgotten. */
    public static void reset() {
        FIXED_AT.set(null);
        OFFSET.set(Duration.ZERO);
        unique = false;
        forget();
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

    /** The clock: (fixed instant or now) + offset, made strictly increasing when asked; in UTC. */
    static final class Testing extends Clock {
        @Override
        public Instant instant() {
            Instant base = FIXED_AT.get();
            Instant i = (base == null ? Instant.now() : base).plus(OFFSET.get());
            if (unique) {
                long real = Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1000);
                long micros = LAST_MICROS.updateAndGet(prev -> Math.max(prev + 1, real));
                i = Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
            }
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
