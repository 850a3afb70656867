package com.teamdesk.tasks.platform;

/**
 * The kinds of thread that begin JTA transactions in this application. Payara enlists a pooled
 * connection only when the thread's current component invocation carries the transaction, and
 * whether it does depends on how the thread was made (docs/platform.md); so enlistment is checked
 * per kind ({@link EnlistmentGuard}).
 */
public enum TxSite {
    /** A task execution on the queue worker's threads ({@code TaskWorker}'s executor). */
    WORKER,
    /** An EJB timer's timeout ({@code TaskTimers}). */
    TIMER,
    /** An HTTP request (JAX-RS resource → application service). */
    REQUEST
}
