package com.teamdesk.tasks.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.function.Supplier;

/**
 * Runs work in its own JTA transaction whose connections are enlisted, on any kind of thread
 * (worker, EJB timer, request). Every multi-statement transaction of the application goes through
 * here: the reminder's four writes (R14), one batch of a dispatch or recovery sweep (R18-R20), a
 * dispatch right after creation or retry. Code inside may call CDI {@code @Transactional(MANDATORY)}
 * or {@code REQUIRED} methods: they join this transaction.
 */
@ApplicationScoped
public class Transactions {

    @Inject
    TransactionBoundary boundary;

    /**
     * Runs {@code work} in a new transaction: committed when it returns, rolled back when it throws.
     *
     * @param site the kind of thread calling, for the enlistment check ({@link EnlistmentGuard})
     * @return what {@code work} returned
     * @throws RuntimeException what {@code work} threw, after the rollback; an
     *                          {@code IllegalStateException} when connections are not enlisted on
     *                          {@code site}; an {@code EJBException} when the commit failed
     */
    public <T> T inNewTransaction(TxSite site, Supplier<T> work) {
        TransactionBoundary.Outcome<T> outcome = boundary.requiresNew(site, work);
        if (outcome.failure() != null) {
            throw outcome.failure();
        }
        return outcome.value();
    }

    /** Same as {@link #inNewTransaction(TxSite, Supplier)} for work without a value. */
    public void inNewTransaction(TxSite site, Runnable work) {
        inNewTransaction(site, () -> {
            work.run();
            return null;
        });
    }
}
