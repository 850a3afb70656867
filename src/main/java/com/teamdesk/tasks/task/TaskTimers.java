package com.teamdesk.tasks.task;

import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.ejb.Timer;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * EJB timers of the task engine: dispatch (R18) every 5 s, stall recovery and reconciliation
 * (R19, R20, and R23 for cancelled runs) every 15 s, CSV purge (R13) and expired
 * {@code Idempotency-Key} purge (R25) every minute. Non-persistent (persistent timers of Payara
 * Micro are tied to one instance); correctness never depends on one instance running them, because
 * the sweeps coordinate in PostgreSQL ({@code FOR UPDATE SKIP LOCKED}). A sweep that is still
 * running when the next tick fires is skipped.
 *
 * <p>Transactions: the bean manages its own ({@code BEAN}), so a timeout runs in NO transaction of the
 * container's; each batch of a sweep is its own transaction through {@link Transactions}, committed
 * before the next batch starts (a sweep over 5 000 rows never holds their locks for its whole
 * length). A failing batch is logged and ends that tick; the timeout itself returns normally, so the
 * container never counts a failed delivery and never expunges the timer (Payara does after two).
 * A sweep handles at most {@link #MAX_BATCHES} batches per tick and leaves the rest to the next.
 */
@Singleton
@Startup
@DependsOn("SchemaMigration")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionManagement(TransactionManagementType.BEAN)
public class TaskTimers {
    private static final Logger LOG = Logger.getLogger(TaskTimers.class.getName());

    /** Upper bound of batches one sweep handles in one tick. */
    static final int MAX_BATCHES = 100;

    @Inject
    TaskDispatcher dispatcher;

    @Inject
    TaskRecovery recovery;

    @Inject
    IdempotencyKeys idempotencyKeys;

    @Inject
    Transactions transactions;

    @Resource
    TimerService timerService;

    @Inject
    Clock clock;

    @Inject
    @ConfigProperty(name = "teamdesk.timers.enabled", defaultValue = "true")
    boolean enabled;

    @Inject
    @ConfigProperty(name = "teamdesk.dispatch.batch-size", defaultValue = "200")
    int batchSize;

    private final Sweep dispatching = new Sweep("dispatch");
    private final Sweep recovering = new Sweep("recovery");
    private final Sweep purging = new Sweep("purge");
    private final Sweep keyPurging = new Sweep("idempotency");

    /**
     * What one sweep did on this instance: runs and failures since startup, consecutive failures,
     * and the last run's start, end, outcome and rows handled. Times come from the application
     * clock; {@code lastOutcome} is {@code "ok"}, {@code "failed: <error>"} or null before the first run.
     */
    public record SweepStatus(String name, long runs, long failures, long consecutiveFailures, Instant lastStart,
            Instant lastEnd, String lastOutcome, int lastHandled, Instant nextTimeout) {
    }

    /** Mutable state of one sweep; {@code running} keeps two ticks of it from overlapping. */
    private static final class Sweep {
        final String name;
        final AtomicBoolean running = new AtomicBoolean();
        volatile long runs;
        volatile long failures;
        volatile long consecutiveFailures;
        volatile Instant lastStart;
        volatile Instant lastEnd;
        volatile String lastOutcome;
        volatile int lastHandled;

        Sweep(String name) {
            this.name = name;
        }
    }

    /** Schedules the enlistment probe: one empty transaction on a timer thread, right after startup. */
    @PostConstruct
    void scheduleProbe() {
        if (enabled) {
            timerService.createSingleActionTimer(1, new TimerConfig("enlistment probe", false));
        }
    }

    /** The enlistment probe on a timer thread (EnlistmentGuard); its verdict feeds the readiness check. */
    @Timeout
    void probe() {
        try {
            transactions.inNewTransaction(TxSite.TIMER, () -> null);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "task.timers: the sweeps will not run: " + e.getMessage());
        }
    }

    @Schedule(second = "*/5", minute = "*", hour = "*", persistent = false, info = "dispatch (R18)")
    void dispatch() {
        sweep("dispatch", dispatching, () -> batches(() -> dispatcher.dispatchDue(batchSize)));
    }

    @Schedule(second = "*/15", minute = "*", hour = "*", persistent = false, info = "recovery (R19 stall recovery, R20 reconciliation)")
    void recover() {
        sweep("recovery", recovering, () -> batches(() -> recovery.recoverStalled(batchSize).size())
                + batches(() -> recovery.reconcile(batchSize)) + batches(() -> recovery.reconcileCancelled(batchSize)));
    }

    @Schedule(second = "30", minute = "*", hour = "*", persistent = false, info = "purge (R13 expired CSVs)")
    void purge() {
        sweep("purge", purging, () -> batches(() -> recovery.purgeExpiredResults(batchSize)));
    }

    @Schedule(second = "45", minute = "*", hour = "*", persistent = false, info = "idempotency (R25 expired keys)")
    void purgeIdempotencyKeys() {
        sweep("idempotency", keyPurging, () -> batches(() -> idempotencyKeys.purgeExpired(clock.instant(), batchSize)));
    }

    /**
     * Runs {@code batch} in its own transaction until it handles fewer than a full batch (or
     * {@link #MAX_BATCHES} ran); each batch commits before the next begins.
     *
     * @return rows handled in all batches
     */
    private int batches(IntSupplier batch) {
        int total = 0;
        for (int i = 0; i < MAX_BATCHES; i++) {
            int n = transactions.inNewTransaction(TxSite.TIMER, batch::getAsInt);
            total += n;
            if (n < batchSize) {
                break;
            }
        }
        return total;
    }

    /** @return the status of the dispatch, recovery, purge and idempotency sweeps on this instance, with their next timeouts */
    public List<SweepStatus> status() {
        Map<String, Instant> next = new HashMap<>();
        for (Timer t : timerService.getTimers()) {
            if (t.getInfo() instanceof String info) {
                next.put(info.substring(0, info.indexOf(' ') < 0 ? info.length() : info.indexOf(' ')), t.getNextTimeout()
                        .toInstant());
            }
        }
        List<SweepStatus> out = new ArrayList<>();
        for (Sweep s : List.of(dispatching, recovering, purging, keyPurging)) {
            out.add(new SweepStatus(s.name, s.runs, s.failures, s.consecutiveFailures, s.lastStart, s.lastEnd,
                    s.lastOutcome, s.lastHandled, next.get(s.name)));
        }
        return out;
    }

    /** @return the status of one sweep ({@code dispatch}, {@code recovery}, {@code purge}, {@code idempotency}) */
    public SweepStatus status(String name) {
        return status().stream().filter(s -> s.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no sweep " + name));
    }

    private void sweep(String name, Sweep sweep, IntSupplier body) {
        if (!enabled || !sweep.running.compareAndSet(false, true)) {
            return;
        }
        sweep.lastStart = clock.instant();
        try {
            int n = body.getAsInt();
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
            LOG.log(Level.WARNING, "task.sweep " + name + " failed (" + sweep.consecutiveFailures + " in a row); the"
                    + " rows of the failed batch are left as they were, the next tick runs again: " + e);
        } finally {
            sweep.runs++;
            sweep.lastEnd = clock.instant();
            sweep.running.set(false);
        }
    }
}
