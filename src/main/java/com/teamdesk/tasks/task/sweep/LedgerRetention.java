package com.teamdesk.tasks.task.sweep;

import com.teamdesk.tasks.task.ledger.JdbcTaskLedger;
import com.teamdesk.tasks.task.ledger.LedgerException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional.TxType;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.Instant;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Ledger retention (R29, issue 17): deletes finished task rows (COMPLETED, FAILED, CANCELLED) whose
 * last write ({@code updated_at}) is older than {@code teamdesk.retention.max-age-days} (default 90),
 * one bounded batch per call in the caller's transaction (the timers begin one per batch). WAITING and
 * RUNNING rows are never deleted, nor a CANCELLED run whose queue record may still exist (R23
 * reconciliation has not cleared its {@code dispatched_at} yet). Rows another instance's batch holds
 * are skipped ({@code FOR UPDATE SKIP LOCKED}), so two instances never wait on each other. The CSV
 * goes with its row; notifications and system events that named the task keep their text and lose
 * the link ({@code ON DELETE SET NULL}, migration V5).
 */
@ApplicationScoped
public class LedgerRetention {

    @Inject
    JdbcTaskLedger ledger;

    @Inject
    @ConfigProperty(name = "teamdesk.retention.max-age-days", defaultValue = "90")
    long maxAgeDays;

    @Inject
    @ConfigProperty(name = "teamdesk.retention.batch-size", defaultValue = "500")
    int batchSize;

    @Inject
    @ConfigProperty(name = "teamdesk.idempotency.ttl-s", defaultValue = "86400")
    long idempotencyTtlS;

    /** @return rows one batch deletes at most ({@code teamdesk.retention.batch-size}, at least 1) */
    public int batchSize() {
        return Math.max(1, batchSize);
    }

    /**
     * The newest {@code updated_at} a finished row may have to be deleted: {@code now} minus the
     * retention age, but never less than the {@code Idempotency-Key} lifetime, so a stored answer
     * never names a deleted task.
     */
    public Instant cutoff(Instant now) {
        Duration age = Duration.ofDays(Math.max(0, maxAgeDays));
        Duration keys = Duration.ofSeconds(Math.max(0, idempotencyTtlS));
        return now.minus(age.compareTo(keys) >= 0 ? age : keys);
    }

    /**
     * Deletes up to {@link #batchSize()} finished rows last written before {@link #cutoff}, oldest first: the
     * ledger's transition {@link JdbcTaskLedger#deleteFinished}.
     *
     * @return rows deleted
     * @throws LedgerException the database failed (the caller's transaction rolls back)
     */
    @Transactional(TxType.MANDATORY)
    public int deleteBatch(Instant now) {
        return ledger.deleteFinished(cutoff(now), batchSize());
    }
}
