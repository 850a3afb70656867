package com.teamdesk.tasks.queue;

/**
 * Asked by a {@link Worker}'s fetch loop before it takes each new job (issue 28): a processor whose own store
 * is unreachable closes it, so that jobs stay waiting in the queue instead of being fetched and deferred one
 * after another. A circuit breaker is the usual implementation: closed while its store answers, open after a
 * failure, one probe at a time (half-open) before it closes again.
 */
@FunctionalInterface
public interface FetchGate {

    /**
     * Waits until fetching may go on, at most {@code maxWaitMs}.
     *
     * @param maxWaitMs longest wait, in ms
     * @return true when the worker may fetch now; false when it may not yet (the worker asks again)
     */
    boolean awaitOpen(long maxWaitMs);
}
