package com.teamdesk.tasks.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The database's clock is the ledger's clock (issue 28, R37): the application's {@link Clock} is this JVM's
 * clock ({@link SystemTime}) corrected by its measured offset to PostgreSQL, so every timestamp the ledger
 * gets and every cutoff compared with one (claim, progress, completion, dispatch, stall recovery,
 * {@code runAt}, expiry, retention, the idempotency-key sweep) is PostgreSQL's time whatever this instance's
 * clock says: two instances whose clocks disagree by minutes agree on the ledger.
 *
 * <p>The offset is {@code clock_timestamp()} minus the midpoint of the JVM times around the query (error at
 * most half the round trip), measured at startup and every minute ({@link ClockSync}); a measurement that
 * fails keeps the last offset. Over {@value #WARN_MS} ms it logs a WARNING (again whenever it changes by
 * more than that). Reading the clock costs no round trip.
 */
@ApplicationScoped
public class DatabaseClock {
    private static final Logger LOG = Logger.getLogger(DatabaseClock.class.getName());

    /** An offset larger than this is logged as a WARNING, in ms. */
    static final long WARN_MS = 1_000;

    @Inject
    Jdbc jdbc;

    @Inject
    @SystemTime
    Clock jvm;

    private volatile long offsetNanos;
    private volatile Instant measuredAt;
    private volatile long roundTripMicros = -1;
    private volatile long warnedOffsetMs;

    /**
     * Measures the offset now.
     *
     * @return the new offset (PostgreSQL minus this JVM), or the last one when PostgreSQL could not be asked
     */
    public Duration measure() {
        try {
            Sample sample = jdbc.withConnection(c -> {
                try (Statement st = c.createStatement()) {
                    Instant before = jvm.instant();
                    long t0 = System.nanoTime();
                    Instant at;
                    try (ResultSet rs = st.executeQuery("SELECT clock_timestamp()")) {
                        rs.next();
                        at = rs.getObject(1, OffsetDateTime.class).toInstant();
                    }
                    return new Sample(before, System.nanoTime() - t0, at);
                }
            });
            Instant before = sample.before();
            long rtt = sample.rttNanos();
            Instant db = sample.db();
            Instant mid = before.plusNanos(rtt / 2);
            long offset = Duration.between(mid, db).toNanos();
            offsetNanos = offset;
            measuredAt = db;
            roundTripMicros = rtt / 1_000;
            long ms = offset / 1_000_000;
            if (Math.abs(ms) > WARN_MS && Math.abs(ms - warnedOffsetMs) > WARN_MS) {
                warnedOffsetMs = ms;
                LOG.warning(() -> "clock: this instance's clock is " + describe(ms) + " PostgreSQL's; the ledger uses"
                        + " PostgreSQL's time (offset applied), but check NTP on this host");
            } else if (Math.abs(ms) <= WARN_MS && Math.abs(warnedOffsetMs) > WARN_MS) {
                warnedOffsetMs = 0;
                LOG.info(() -> "clock: this instance's clock is within " + WARN_MS + " ms of PostgreSQL's again");
            }
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.FINE, "clock: offset to PostgreSQL not measured; keeping the last one", e);
        }
        return offset();
    }

    /** @return PostgreSQL's time minus this JVM's, as last measured (zero before the first measurement) */
    public Duration offset() {
        return Duration.ofNanos(offsetNanos);
    }

    /** @return PostgreSQL's time at the last successful measurement, or null before the first */
    public Instant measuredAt() {
        return measuredAt;
    }

    /** @return the round trip of the last measurement in µs, or -1 before the first */
    public long roundTripMicros() {
        return roundTripMicros;
    }

    /** @return the application clock: this JVM's time plus the offset, in UTC */
    public Clock clock() {
        return new Corrected(ZoneOffset.UTC);
    }

    /** One measurement: this JVM's time before the query, the query's round trip in ns, PostgreSQL's time. */
    private record Sample(Instant before, long rttNanos, Instant db) {
    }

    private static String describe(long ms) {
        return Math.abs(ms) + " ms " + (ms < 0 ? "ahead of" : "behind");
    }

    /** This JVM's clock plus the last measured offset. */
    private final class Corrected extends Clock {
        private final ZoneId zone;

        Corrected(ZoneId zone) {
            this.zone = zone;
        }

        @Override
        public ZoneId getZone() {
            return zone;
        }

        @Override
        public Clock withZone(ZoneId z) {
            return new Corrected(z);
        }

        @Override
        public Instant instant() {
            return jvm.instant().plusNanos(offsetNanos);
        }
    }
}
