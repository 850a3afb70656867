package com.teamdesk.tasks.platform;

import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.LocalBean;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.function.Supplier;

/**
 * Where background threads begin their JTA transactions: an EJB business method with
 * {@code REQUIRES_NEW}. The EJB container begins the transaction and records it on the component
 * invocation it pushes for the call, and that record is what Payara's connection pool reads to
 * enlist a connection; a CDI {@code @Transactional} method on a thread whose current invocation is an
 * EJB invocation without a transaction (the worker's threads, a timer's timeout) begins a
 * transaction that no connection joins (docs/platform.md). Use it through {@link Transactions}.
 *
 * <p>A failure of the work does not escape as a system exception (which the container would wrap
 * in an {@code EJBException}): it marks the transaction rollback-only and is handed back in the
 * {@link Outcome}, so the caller sees the work's own exception (e.g. {@code LeaseLost}) after the
 * rollback.
 */
@Singleton
@LocalBean
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class TransactionBoundary {

    @Resource
    SessionContext context;

    @Inject
    EnlistmentGuard guard;

    /** The result of {@link #requiresNew}: a value, or the failure that rolled the transaction back. */
    public record Outcome<T>(T value, RuntimeException failure) {
    }

    /**
     * Runs {@code work} in a new transaction that commits when it returns and rolls back when it
     * throws. Checks enlistment on {@code site} first ({@link EnlistmentGuard#verify}).
     *
     * @return the work's value, or its exception (the transaction was then rolled back)
     * @throws jakarta.ejb.EJBException when the commit itself fails (the transaction is rolled back)
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public <T> Outcome<T> requiresNew(TxSite site, Supplier<T> work) {
        try {
            guard.verify(site);
            return new Outcome<>(work.get(), null);
        } catch (RuntimeException e) {
            context.setRollbackOnly();
            return new Outcome<>(null, e);
        }
    }
}
