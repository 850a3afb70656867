package com.teamdesk.tasks.it.support;

import com.teamdesk.tasks.platform.Transactions;
import com.teamdesk.tasks.platform.TxSite;
import com.teamdesk.tasks.task.engine.TaskDispatcher;
import com.teamdesk.tasks.task.idempotency.IdempotencyKeys;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.sweep.TaskRecovery;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.List;
import java.util.UUID;

/**
 * One batch of a production sweep, called by a test on its own schedule: the production
 * {@link TaskDispatcher} / {@link TaskRecovery} method inside the production transaction boundary
 * ({@link Transactions}, one batch = one transaction), exactly as {@code TaskTimers} runs each batch
 * and {@code TaskService} dispatches after creation.
 */
@ApplicationScoped
public class Sweeps {

    @Inject
    Transactions transactions;

    @Inject
    TaskDispatcher dispatcher;

    @Inject
    TaskRecovery recovery;

    @Inject
    IdempotencyKeys idempotencyKeys;

    @Inject
    Clock clock;

    /** One R18 batch, as a dispatch tick runs it. */
    public int dispatchDue(int limit) {
        return transactions.inNewTransaction(TxSite.TIMER, () -> dispatcher.dispatchDue(limit));
    }

    /** The dispatch right after creation or retry, as {@code TaskService} runs it. */
    public void dispatchNow(UUID taskId) {
        transactions.inNewTransaction(TxSite.REQUEST, () -> dispatcher.dispatchNow(taskId));
    }

    /** One R19 batch, as a recovery tick runs it. */
    public List<TaskJobId> recoverStalled(int limit) {
        return transactions.inNewTransaction(TxSite.TIMER, () -> recovery.recoverStalled(limit));
    }

    /** One R20 batch, as a recovery tick runs it. */
    public int reconcile(int limit) {
        return transactions.inNewTransaction(TxSite.TIMER, () -> recovery.reconcile(limit));
    }

    /** One R23 batch of the cancelled-run reconciliation, as a recovery tick runs it. */
    public int reconcileCancelled(int limit) {
        return transactions.inNewTransaction(TxSite.TIMER, () -> recovery.reconcileCancelled(limit));
    }

    /** One R25 batch of the expired Idempotency-Key sweep, as its tick runs it. */
    public int purgeIdempotencyKeys(int limit) {
        return transactions.inNewTransaction(TxSite.TIMER, () -> idempotencyKeys.purgeExpired(clock.instant(), limit));
    }

    /** One R13 purge batch, as a purge tick runs it. */
    public int purgeExpiredResults(int limit) {
        return transactions.inNewTransaction(TxSite.TIMER, () -> recovery.purgeExpiredResults(limit));
    }
}
