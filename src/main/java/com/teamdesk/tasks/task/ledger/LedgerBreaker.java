package com.teamdesk.tasks.task.ledger;

import com.teamdesk.tasks.platform.DatabaseUnavailable;
import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.platform.PoolLogFilter;
import com.teamdesk.tasks.queue.FetchGate;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The circuit breaker of this instance in front of its ledger (issue 28): an unreachable PostgreSQL is the
 * infrastructure's fault, not the tasks'.
 *
 * <ul>
 * <li><b>Closed</b> while the ledger answers. Any caller that meets a {@link DatabaseUnavailable} error opens
 * it ({@link #failed}).</li>
 * <li><b>Open</b>: the worker fetches no new job (this is its {@link FetchGate}), executions that meet the
 * outage are deferred without using an attempt ({@link #deferralDelayMs}), the timers skip their sweeps with
 * one log line each, readiness is DOWN.</li>
 * <li><b>Half-open</b>: one probe at a time ({@code isValid} on a pooled connection), the first after
 * {@value #FIRST_PROBE_MS} ms, then with a doubling pause up to {@value #MAX_PROBE_MS} ms; a probe that
 * succeeds closes it again.</li>
 * </ul>
 * One WARNING when an outage begins and one INFO when it ends, with its length and what was deferred and
 * skipped meanwhile; Payara's own pool lines for each failed allocation are held back while it is open and
 * counted, by message id, in the closing line ({@link PoolLogFilter}). Lengths are measured on the JVM's
 * monotonic clock (never a ledger time).
 */
@ApplicationScoped
public class LedgerBreaker implements FetchGate {
    private static final Logger LOG = Logger.getLogger(LedgerBreaker.class.getName());

    static final long FIRST_PROBE_MS = 500;
    static final long MAX_PROBE_MS = 5_000;
    /** Shortest and longest deferral of an execution that met the outage, in ms. */
    static final long MIN_DEFERRAL_MS = 1_000;
    static final long MAX_DEFERRAL_MS = 60_000;
    private static final int PROBE_TIMEOUT_S = 2;

    @Inject
    Jdbc jdbc;

    /**
     * How long an outage may last before the executions it defers fail after all (with
     * {@code FailureCause#DATABASE_UNREACHABLE}); default 30 minutes.
     */
    @Inject
    java.time.Clock clock;

    @Inject
    @ConfigProperty(name = "teamdesk.ledger.outage-budget-ms", defaultValue = "1800000")
    long outageBudgetMs;

    private final Object lock = new Object();
    /** {@code System.nanoTime()} when the outage began; 0 while closed. Guarded by {@link #lock}. */
    private long openedAtNanos;
    private Instant openedAt;
    private long nextProbeNanos;
    private long probePauseMs;
    private boolean probing;
    private long deferred;
    private long skipped;
    private String firstCause;
    private final Set<String> skippedSweeps = new HashSet<>();

    /**
     * R35: while the breaker is open, Payara's per-allocation pool lines are held back (the breaker said once that
     * the ledger is unreachable) and counted in its closing line.
     */
    private final PoolLogFilter poolLines = new PoolLogFilter(PoolLogFilter.LOGGERS, this::isOpen);

    /** Puts the pool-line filter on the pool's loggers that exist when the application starts. */
    void filterPoolLines(@Observes @Initialized(ApplicationScoped.class) Object ignored) {
        int n = poolLines.install();
        LOG.fine(() -> "connection-pool lines held back during outages: filter on " + n + " of "
                + PoolLogFilter.LOGGERS.size() + " loggers (the others when an outage begins)");
    }

    @PreDestroy
    void restorePoolLoggers() {
        poolLines.uninstall();
    }

    /**
     * Records that {@code where} could not reach the ledger; opens the breaker when it is closed (one WARNING).
     * Errors that are not {@link DatabaseUnavailable} are ignored.
     *
     * @param error what the caller met
     * @param where who met it, for the log line (e.g. {@code "claim of 3f2c…-0"})
     * @return whether {@code error} was a database outage
     */
    public boolean failed(Throwable error, String where) {
        if (!DatabaseUnavailable.isCause(error)) {
            return false;
        }
        boolean opened = false;
        synchronized (lock) {
            if (openedAtNanos == 0) {
                opened = true;
                poolLines.reset(); // before it opens: a line held from here on is this outage's
                openedAtNanos = Math.max(1, System.nanoTime());
                openedAt = clock.instant(); // shown to operators only, never written to the ledger
                probePauseMs = FIRST_PROBE_MS;
                nextProbeNanos = openedAtNanos + FIRST_PROBE_MS * 1_000_000;
                deferred = 0;
                skipped = 0;
                skippedSweeps.clear();
                firstCause = where + ": " + rootMessage(error);
                String cause = firstCause;
                LOG.warning(() -> "task.ledger UNREACHABLE (" + cause + "). The worker stops fetching jobs, executions"
                        + " that meet the outage are deferred without using an attempt, sweeps are skipped; probing"
                        + " every " + FIRST_PROBE_MS + "-" + MAX_PROBE_MS + " ms. One line until it answers again.");
            }
        }
        if (opened) {
            poolLines.install(); // a pool logger Payara created after startup (not while holding the lock)
        }
        return true;
    }

    /** @return whether the breaker is open (or half-open): the ledger was unreachable and no probe has passed since */
    public boolean isOpen() {
        synchronized (lock) {
            return openedAtNanos != 0;
        }
    }

    /** @return when the current outage began (JVM clock), or empty while closed */
    public Optional<Instant> openSince() {
        synchronized (lock) {
            return Optional.ofNullable(openedAtNanos == 0 ? null : openedAt);
        }
    }

    /**
     * The worker's fetch gate: true at once while closed; while open, runs the probe when one is due (one caller
     * at a time) and otherwise waits for the next probe, at most {@code maxWaitMs}.
     */
    @Override
    public boolean awaitOpen(long maxWaitMs) {
        if (probeIfDue()) {
            return true;
        }
        synchronized (lock) {
            if (openedAtNanos == 0) {
                return true;
            }
            long waitMs = Math.min(maxWaitMs, Math.max(1, (nextProbeNanos - System.nanoTime()) / 1_000_000));
            try {
                lock.wait(waitMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return openedAtNanos == 0;
        }
    }

    /**
     * Runs the half-open probe in the calling thread when the breaker is open, a probe is due and no other
     * caller is probing; never waits for another caller's probe.
     *
     * @return whether the breaker is closed afterwards
     */
    public boolean probeIfDue() {
        synchronized (lock) {
            if (openedAtNanos == 0) {
                return true;
            }
            if (probing || System.nanoTime() < nextProbeNanos) {
                return false;
            }
            probing = true;
        }
        boolean up = probe();
        synchronized (lock) {
            probing = false;
            if (!up) {
                probePauseMs = Math.min(MAX_PROBE_MS, probePauseMs * 2);
                nextProbeNanos = System.nanoTime() + probePauseMs * 1_000_000;
                return false;
            }
            if (openedAtNanos != 0) {
                long ms = (System.nanoTime() - openedAtNanos) / 1_000_000;
                long d = deferred;
                long s = skipped;
                String held = heldBack(poolLines.drain());
                LOG.info(() -> "task.ledger reachable again after " + ms + " ms: " + d + " execution(s) were deferred"
                        + " (no attempt used), " + s + " sweep tick(s) skipped, " + held + "; the worker fetches again");
                openedAtNanos = 0;
                lock.notifyAll();
            }
            return true;
        }
    }

    /** @return e.g. "27 connection-pool log line(s) held back (RAR5038 9, RAR5117 9, RAR5114 9)" */
    static String heldBack(Map<String, Long> byId) {
        long total = byId.values().stream().mapToLong(Long::longValue).sum();
        StringJoiner ids = new StringJoiner(", ", " (", ")").setEmptyValue("");
        byId.forEach((id, n) -> ids.add(id + " " + n));
        return total + " connection-pool log line(s) held back" + ids;
    }

    private boolean probe() {
        try {
            return jdbc.withConnection(c -> c.isValid(PROBE_TIMEOUT_S));
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    /**
     * How long an execution that met the outage waits before it may be fetched again: about as long as the
     * outage has lasted so far (so the waits double while it goes on), from {@value #MIN_DEFERRAL_MS} to
     * {@value #MAX_DEFERRAL_MS} ms. Counts the deferral for the closing log line.
     *
     * @return the delay in ms
     */
    public long deferralDelayMs() {
        synchronized (lock) {
            deferred++;
            long elapsed = openedAtNanos == 0 ? 0 : (System.nanoTime() - openedAtNanos) / 1_000_000;
            return Math.max(MIN_DEFERRAL_MS, Math.min(MAX_DEFERRAL_MS, elapsed));
        }
    }

    /** @return whether the current outage has lasted longer than {@code teamdesk.ledger.outage-budget-ms} */
    public boolean budgetExhausted() {
        synchronized (lock) {
            return openedAtNanos != 0 && System.nanoTime() - openedAtNanos > outageBudgetMs * 1_000_000;
        }
    }

    /** @return the outage budget (issue 28) */
    public Duration outageBudget() {
        return Duration.ofMillis(outageBudgetMs);
    }

    /**
     * Records a sweep tick skipped because the breaker is open.
     *
     * @param sweep the sweep's name
     * @return true for the first skip of this sweep in this outage (the caller logs one line), false after
     */
    public boolean sweepSkipped(String sweep) {
        synchronized (lock) {
            skipped++;
            return skippedSweeps.add(sweep);
        }
    }

    /** @return a line for the readiness check and the operator API, e.g. "DOWN since …: 3 deferred", or "UP" */
    public String describe() {
        synchronized (lock) {
            return openedAtNanos == 0 ? "UP"
                    : "DOWN since " + openedAt + " (" + firstCause + "); " + deferred + " execution(s) deferred, "
                            + skipped + " sweep tick(s) skipped";
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        for (int i = 0; i < 16 && t.getCause() != null && t.getCause() != t; i++) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }
}
