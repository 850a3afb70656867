package com.teamdesk.tasks.task.sweep;

import com.teamdesk.tasks.task.engine.TaskDispatcher;
import com.teamdesk.tasks.task.engine.TaskKinds;
import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskKindHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional.TxType;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Stall recovery (R19) and reconciliation with the queue (R20), measured on the ledger's
 * {@code updatedAt} (export progress moves it). A run whose worker died converges in two sweeps:
 * RUNNING → WAITING first, then re-dispatched or FAILED from the queue's record. Each sweep is
 * one batch in the caller's transaction ({@code MANDATORY}, begun per batch by the timers through
 * {@link com.teamdesk.tasks.platform.Transactions}): a failing batch leaves its rows as they were.
 */
@ApplicationScoped
public class TaskRecovery {
    private static final Logger LOG = Logger.getLogger(TaskRecovery.class.getName());

    @Inject
    JdbcTaskLedger ledger;

    @Inject
    TaskKinds kinds;

    @Inject
    TaskDispatcher dispatcher;

    @Inject
    Clock clock;

    @Inject
    @ConfigProperty(name = "teamdesk.recovery.stall-threshold-ms", defaultValue = "120000")
    long stallThresholdMs;

    /**
     * R19: RUNNING rows not written for the threshold (default 2 min) go back to WAITING with
     * {@code executionId} and {@code dispatchedAt} cleared.
     *
     * @return the runs recovered
     */
    @Transactional(TxType.MANDATORY)
    public List<TaskJobId> recoverStalled(int limit) {
        Instant now = clock.instant();
        List<TaskJobId> recovered = ledger.recoverStalled(now.minus(Duration.ofMillis(stallThresholdMs)), limit, now);
        recovered.forEach(job -> LOG.warning(() -> "task.recovered " + job + ": RUNNING with no ledger write for "
                + stallThresholdMs + " ms; back to WAITING"));
        return recovered;
    }

    /**
     * R20: WAITING, dispatched rows not written for the threshold are checked against the queue's
     * record of {@code T-run}.
     *
     * @return how many rows were checked
     */
    @Transactional(TxType.MANDATORY)
    public int reconcile(int limit) {
        Instant now = clock.instant();
        List<TaskJobId> rows = ledger.lockDispatchedWaiting(now.minus(Duration.ofMillis(stallThresholdMs)), limit);
        for (TaskJobId job : rows) {
            dispatcher.reconcile(job, now);
        }
        return rows.size();
    }

    /**
     * R23: CANCELLED runs cancelled more than the threshold ago whose queue record may still exist:
     * the record is removed (it is garbage) and the row's dispatch marker cleared.
     *
     * @return how many rows were settled (a record still active with a live lock is looked at again
     *         by a later sweep)
     */
    @Transactional(TxType.MANDATORY)
    public int reconcileCancelled(int limit) {
        Instant now = clock.instant();
        List<TaskJobId> rows = ledger.lockCancelledDispatched(now.minus(Duration.ofMillis(stallThresholdMs)), limit);
        int settled = 0;
        for (TaskJobId job : rows) {
            if (dispatcher.removeCancelled(job)) {
                settled++;
            }
        }
        return settled;
    }

    /**
     * R13: every kind clears what it keeps past its retention ({@link TaskKindHandler#purgeExpired}; the
     * export: up to {@code limit} CSVs past their 24 h, then up to {@code limit} chunks no result and no
     * running execution owns); returns how many in all.
     */
    @Transactional(TxType.MANDATORY)
    public int purgeExpiredResults(int limit) {
        Instant now = clock.instant();
        int cleared = 0;
        for (TaskKindHandler<?> kind : kinds.all()) {
            cleared += kind.purgeExpired(now, limit);
        }
        return cleared;
    }
}
