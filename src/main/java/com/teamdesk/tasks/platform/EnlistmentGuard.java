package com.teamdesk.tasks.platform;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * Fails loudly when a JTA transaction would not hold: inside an active transaction, a connection
 * from the application's datasource must be enlisted, which shows as auto-commit off. If it is in
 * auto-commit mode, every statement commits on its own, the team lock and row locks are released at
 * once, and throwing {@code LeaseLost} rolls back nothing (R14 broken). That was the case on the
 * worker's threads before the {@link TransactionBoundary} (docs/platform.md).
 *
 * <p>Each {@link TxSite} is verified on its first transaction (and at startup by the worker's and
 * the timers' probes); once a site passed it is not checked again. A site that failed stays failed:
 * every later transaction there throws, and the readiness check reports the server DOWN with the
 * reason, so a broken platform never runs side effects half-committed.
 */
@ApplicationScoped
public class EnlistmentGuard {
    private static final Logger LOG = Logger.getLogger(EnlistmentGuard.class.getName());

    /** Verdict of one site. */
    public enum Verdict {
        /** A connection obtained inside a transaction there was enlisted. */
        ENLISTED,
        /** A connection obtained inside a transaction there was in auto-commit mode. */
        NOT_ENLISTED
    }

    @Inject
    Jdbc jdbc;

    @Resource
    TransactionSynchronizationRegistry registry;

    private final Map<TxSite, Verdict> verdicts = new ConcurrentHashMap<>();

    /**
     * Checks, inside the caller's active transaction, that the datasource enlists its connections on
     * this kind of thread. Cheap once the site passed (a map read).
     *
     * @throws IllegalStateException when no transaction is active, or the connection is in
     *                               auto-commit mode (the site is then marked NOT_ENLISTED for good)
     */
    public void verify(TxSite site) {
        if (verdicts.get(site) == Verdict.ENLISTED) {
            return;
        }
        if (registry.getTransactionStatus() != Status.STATUS_ACTIVE) {
            throw new IllegalStateException("enlistment check on " + site + " threads outside an active transaction"
                    + " (status " + registry.getTransactionStatus() + ")");
        }
        if (!connectionEnlisted()) {
            verdicts.put(site, Verdict.NOT_ENLISTED);
            String why = "JTA enlistment is broken on " + site + " threads: inside an active transaction the"
                    + " datasource " + SchemaMigration.DATASOURCE + " returned a connection in auto-commit mode, so"
                    + " every statement would commit on its own. Refusing to run transactions there and to report"
                    + " ready (docs/platform.md).";
            LOG.severe(why);
            throw new IllegalStateException(why);
        }
        if (verdicts.putIfAbsent(site, Verdict.ENLISTED) == null) {
            LOG.info(() -> "tx.enlistment verified on " + site + " threads");
        }
    }

    /**
     * Looks, without recording anything, whether a connection obtained now from the datasource is
     * enlisted in a transaction: true when its auto-commit is off.
     *
     * @throws IllegalStateException when no connection can be obtained
     */
    public boolean connectionEnlisted() {
        try {
            return jdbc.withConnection(c -> !c.getAutoCommit());
        } catch (SQLException e) {
            throw new IllegalStateException("enlistment check: " + e.getMessage(), e);
        }
    }

    /** @return the verdict of each site checked so far (sites not yet checked are absent) */
    public Map<TxSite, Verdict> verdicts() {
        return Map.copyOf(verdicts);
    }

    /** @return the verdict of {@code site}, or null when no transaction ran there yet */
    public Verdict verdict(TxSite site) {
        return verdicts.get(site);
    }
}
