package com.teamdesk.tasks.task.sweep;

import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.task.engine.TaskDispatcher;
import com.teamdesk.tasks.task.fairshare.TeamQueueLimits;
import com.teamdesk.tasks.task.idempotency.IdempotencyKeys;
import com.teamdesk.tasks.task.observe.TaskMetrics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.function.IntSupplier;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * What each sweep of {@code TaskTimers} does in one tick, batch by batch: each batch is its own transaction
 * through {@link Transactions}, committed before the next begins, at most {@link #MAX_BATCHES} a tick. Called
 * on the timers' threads, in no transaction of the container's.
 */
@ApplicationScoped
public class SweepWork {
    /** The sweeps' logger: the timers' and their work's lines under one name, as operators filter them. */
    static final String LOGGER = SweepWork.class.getPackageName() + ".TaskTimers";

    private static final Logger LOG = Logger.getLogger(LOGGER);

    /** Upper bound of batches one sweep handles in one tick. */
    static final int MAX_BATCHES = 100;

    @Inject
    TaskDispatcher dispatcher;

    @Inject
    TaskRecovery recovery;

    @Inject
    IdempotencyKeys idempotencyKeys;

    @Inject
    LedgerRetention retention;

    @Inject
    Transactions transactions;

    @Inject
    Clock clock;

    @Inject
    TaskMetrics metrics;

    @Inject
    TeamQueueLimits teamLimits;

    @Inject
    jakarta.enterprise.inject.Instance<DueTaskSource> sources;

    @Inject
    @ConfigProperty(name = "teamdesk.dispatch.batch-size", defaultValue = "200")
    int batchSize;

    /**
     * The body of one sweep's tick.
     *
     * @param sweep {@code dispatch}, {@code recovery}, {@code idempotency}, {@code retention} or {@code purge}
     *              (any other name: purge)
     * @return the body; it returns the rows handled and throws what its failing batch threw
     */
    IntSupplier body(String sweep) {
        return switch (sweep) {
            // issue 31: the due schedules' slots become tasks first, so that this tick dispatches them
            case "dispatch" -> () -> {
                int made = 0;
                for (DueTaskSource source : sources) {
                    made += batches(() -> source.materializeDue(batchSize));
                }
                return made + batches(() -> dispatcher.dispatchDue(batchSize));
            };
            case "recovery" -> () -> {
                int recovered = batches(() -> recovery.recoverStalled(batchSize).size());
                metrics.recovered(recovered);
                // issue 30: the queue has every team's cap again after a Redis restart, and before reconciliation
                // hands it a single job again: a run re-dispatched before its team's cap was back could be
                // fetched past it (two of a team capped at 1 running at once, CapSlotCrashIT)
                teamLimits.applyAll();
                return recovered + batches(() -> recovery.reconcile(batchSize))
                        + batches(() -> recovery.reconcileCancelled(batchSize));
            };
            case "idempotency" -> () -> batches(() -> idempotencyKeys.purgeExpired(clock.instant(), batchSize));
            case "retention" -> this::retain;
            default -> () -> batches(() -> recovery.purgeExpiredResults(batchSize));
        };
    }

    /**
     * R29: deletes old finished rows, one transaction per batch of {@code teamdesk.retention.batch-size}
     * (at most {@link #MAX_BATCHES} batches a tick); logs rows and batches when it deleted any.
     *
     * @return rows deleted
     */
    private int retain() {
        int size = retention.batchSize();
        int total = 0;
        int batches = 0;
        for (int i = 0; i < MAX_BATCHES; i++) {
            int n = transactions.inNewTransaction(TxSite.TIMER, () -> retention.deleteBatch(clock.instant()));
            batches++;
            total += n;
            if (n < size) {
                break;
            }
        }
        if (total > 0) {
            int rows = total;
            int count = batches;
            LOG.info(() -> "task.retention deleted " + rows + " finished task(s) in " + count + " batch(es)");
        }
        return total;
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
}
