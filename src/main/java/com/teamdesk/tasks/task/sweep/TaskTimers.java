package com.teamdesk.tasks.task.sweep;

import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.task.ledger.LedgerBreaker;
import com.teamdesk.tasks.task.observe.TaskMetrics;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * EJB timers of the task engine: dispatch (R18) every 5 s, stall recovery and reconciliation
 * (R19, R20, and R23 for cancelled runs) every 15 s, CSV purge (R13) and expired
 * {@code Idempotency-Key} purge (R25) every minute, ledger retention (R29) every 10 minutes. Non-persistent (persistent timers of Payara
 * Micro are tied to one instance); correctness never depends on one instance running them, because
 * the sweeps coordinate in PostgreSQL ({@code FOR UPDATE SKIP LOCKED}). A sweep that is still
 * running when the next tick fires is skipped.
 *
 * <p>Transactions: the bean manages its own ({@code BEAN}), so a timeout runs in NO transaction of the
 * container's; each batch of a sweep is its own transaction through {@link Transactions}, committed
 * before the next batch starts (a sweep over 5 000 rows never holds their locks for its whole
 * length). A failing batch is logged and ends that tick; the timeout itself returns normally, so the
 * container never counts a failed delivery and never expunges the timer (Payara does after two).
 * What each sweep does is {@link SweepWork}: at most {@link SweepWork#MAX_BATCHES} batches per tick, the rest left
 * to the next.
 *
 * <p>About 300 lines: the bean is the timers' one EJB (each {@code @Schedule} is a method of it, and the
 * run-now and probe timeouts share its {@code TimerService}); the sweeps' work is {@link SweepWork}.
 */
@Singleton
@Startup
@DependsOn({"SchemaMigration", "ClockSync"})
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionManagement(TransactionManagementType.BEAN)
public class TaskTimers {
    private static final Logger LOG = Logger.getLogger(SweepWork.LOGGER);

    @Inject
    TimerReports reports;

    @Inject
    SweepWork work;

    @Inject
    Transactions transactions;

    @Resource
    TimerService timerService;

    @Inject
    Clock clock;

    @Inject
    TimerPauses pauses;

    @Inject
    LedgerBreaker breaker;

    @Inject
    TaskMetrics metrics;

    @Inject
    @ConfigProperty(name = "teamdesk.timers.enabled", defaultValue = "true")
    boolean enabled;

    private final Sweep dispatching = new Sweep("dispatch", "every 5 s");
    private final Sweep recovering = new Sweep("recovery", "every 15 s");
    private final Sweep purging = new Sweep("purge", "every minute at :30");
    private final Sweep keyPurging = new Sweep("idempotency", "every minute at :45");
    private final Sweep retaining = new Sweep("retention", "every 10 minutes at :50");
    /** Run-now requests waiting for their one-shot timeout, by token. */
    private final Map<String, CompletableFuture<SweepStatus>> runNow = new ConcurrentHashMap<>();

    /** Schedules the enlistment probe: one empty transaction on a timer thread, right after startup. */
    @PostConstruct
    void scheduleProbe() {
        if (enabled) {
            timerService.createSingleActionTimer(1, new TimerConfig("enlistment probe", false));
        }
    }

    /**
     * One-shot timeouts: the enlistment probe on a timer thread (EnlistmentGuard; its verdict feeds the
     * readiness check), or a run-now request of the operator API ({@link #runNow}).
     */
    @Timeout
    void probe(Timer timer) {
        if (timer.getInfo() instanceof String info && info.startsWith(RUN_NOW)) {
            String[] parts = info.split(" ");
            CompletableFuture<SweepStatus> done = runNow.remove(parts[2]);
            try {
                Sweep sweep = sweepNamed(parts[1]);
                boolean ran = sweep(sweep.name, sweep, work.body(sweep.name), true);
                if (done != null) {
                    done.complete(ran ? status(sweep.name) : null);
                }
            } catch (RuntimeException e) {
                if (done != null) {
                    done.completeExceptionally(e);
                }
            }
            return;
        }
        try {
            transactions.inNewTransaction(TxSite.TIMER, () -> null);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "task.timers: the sweeps will not run: " + e.getMessage());
        }
    }

    @Schedule(second = "*/5", minute = "*", hour = "*", persistent = false, info = "dispatch (R18)")
    void dispatch() {
        sweep("dispatch", dispatching, work.body(dispatching.name), false);
    }

    @Schedule(second = "*/15", minute = "*", hour = "*", persistent = false, info = "recovery (R19 stall recovery, R20 reconciliation)")
    void recover() {
        sweep("recovery", recovering, work.body(recovering.name), false);
    }

    @Schedule(second = "30", minute = "*", hour = "*", persistent = false, info = "purge (R13 expired CSVs)")
    void purge() {
        sweep("purge", purging, work.body(purging.name), false);
    }

    private static final String RUN_NOW = "run-now ";

    private Sweep sweepNamed(String name) {
        for (Sweep s : List.of(dispatching, recovering, purging, keyPurging, retaining)) {
            if (s.name.equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("no sweep " + name);
    }

    /** @return the names of the sweeps: {@code dispatch}, {@code recovery}, {@code purge}, {@code idempotency}, {@code retention} */
    public List<String> names() {
        return List.of(dispatching.name, recovering.name, purging.name, keyPurging.name, retaining.name);
    }

    /**
     * Runs a sweep once now, on this instance, on a timer thread (a one-shot timeout, so it runs exactly as
     * a scheduled tick does), even when it is paused or the timers are off by configuration; waits for it.
     *
     * @return the sweep's status after the run, or empty when a tick of it was running already (nothing ran)
     * @throws IllegalArgumentException no sweep of that name
     * @throws IllegalStateException    the run did not end within {@code maxWait}
     */
    public Optional<SweepStatus> runNow(String name, Duration maxWait) {
        sweepNamed(name);
        String token = UUID.randomUUID().toString();
        CompletableFuture<SweepStatus> done = new CompletableFuture<>();
        runNow.put(token, done);
        timerService.createSingleActionTimer(1, new TimerConfig(RUN_NOW + name + " " + token, false));
        try {
            return Optional.ofNullable(done.get(maxWait.toMillis(), TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name, e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the " + name + " sweep did not end within " + maxWait);
        } finally {
            runNow.remove(token);
        }
    }

    @Schedule(second = "45", minute = "*", hour = "*", persistent = false, info = "idempotency (R25 expired keys)")
    void purgeIdempotencyKeys() {
        sweep("idempotency", keyPurging, work.body(keyPurging.name), false);
    }

    @Schedule(second = "50", minute = "*/10", hour = "*", persistent = false, info = "retention (R29 old finished tasks)")
    void retainLedger() {
        sweep("retention", retaining, work.body(retaining.name), false);
    }

    /** @return the status of the dispatch, recovery, purge and idempotency sweeps on this instance, with their next timeouts */
    public List<SweepStatus> status() {
        Map<String, Instant> next = new HashMap<>();
        Map<String, TimerPauses.Pause> paused;
        try {
            paused = pauses.all();
        } catch (RuntimeException e) {
            paused = Map.of();
        }
        for (Timer t : timerService.getTimers()) {
            if (t.getInfo() instanceof String info && !info.startsWith(RUN_NOW) && !info.startsWith("enlistment")) {
                next.put(info.substring(0, info.indexOf(' ') < 0 ? info.length() : info.indexOf(' ')), t.getNextTimeout()
                        .toInstant());
            }
        }
        List<SweepStatus> out = new ArrayList<>();
        for (Sweep s : List.of(dispatching, recovering, purging, keyPurging, retaining)) {
            out.add(new SweepStatus(s.name, s.runs, s.failures, s.consecutiveFailures, s.lastStart, s.lastEnd,
                    s.lastOutcome, s.lastHandled, next.get(s.name), s.schedule, s.skipped, paused.containsKey(s.name)));
        }
        return out;
    }

    /** @return the status of one sweep ({@code dispatch}, {@code recovery}, {@code purge}, {@code idempotency}) */
    public SweepStatus status(String name) {
        return status().stream().filter(s -> s.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no sweep " + name));
    }

    /** @return false when the tick was not run (off, paused, or a tick of it still running) */
    private boolean sweep(String name, Sweep sweep, IntSupplier body, boolean forced) {
        if (!forced && (!enabled || isPaused(name))) {
            if (enabled) {
                sweep.skipped++;
                publish();
            }
            return false;
        }
        if (!forced && !breaker.probeIfDue()) {
            // issue 28: the ledger is unreachable; one line per sweep and outage, the breaker logs its end
            sweep.skipped++;
            if (breaker.sweepSkipped(name)) {
                LOG.info(() -> "task.sweep " + name + " skipped: the ledger is unreachable (further skips of this"
                        + " outage are not logged)");
            }
            return false;
        }
        if (!sweep.running.compareAndSet(false, true)) {
            return false;
        }
        sweep.lastStart = clock.instant();
        long started = System.nanoTime();
        try {
            int n = body.getAsInt();
            metrics.sweep(name, Duration.ofNanos(System.nanoTime() - started), n);
            sweep.lastHandled = n;
            sweep.lastOutcome = "ok";
            sweep.consecutiveFailures = 0;
            if (n > 0) {
                LOG.fine(() -> "task.sweep " + name + " handled " + n);
            }
        } catch (RuntimeException e) {
            sweep.lastHandled = 0;
            sweep.lastOutcome = "failed: " + e;
            sweep.failures++;
            sweep.consecutiveFailures++;
            LOG.log(breaker.failed(e, "sweep " + name) ? Level.FINE : Level.WARNING, "task.sweep " + name + " failed (" + sweep.consecutiveFailures + " in a row); the"
                    + " rows of the failed batch are left as they were, the next tick runs again: " + e);
        } finally {
            sweep.runs++;
            sweep.lastEnd = clock.instant();
            sweep.running.set(false);
            publish();
        }
        return true;
    }

    /** A pause flag that cannot be read does not stop the sweep: it would fail on the database anyway. */
    private boolean isPaused(String name) {
        try {
            return pauses.isPaused(name);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Publishes this instance's sweep status ({@link TimerReports}). Best effort. */
    private void publish() {
        reports.publish(status());
    }

    /** An instance that stops takes its status out of the reports ({@link TimerReports#withdraw}). */
    @PreDestroy
    void withdrawStatus() {
        reports.withdraw();
    }
}
