package com.teamdesk.tasks.task.spi;

import java.util.List;
import java.util.UUID;

/**
 * Issue 52 (R52): what the children of a batch came to, as its completion task reads them when it runs.
 *
 * @param batchId        the batch
 * @param label          its label, or null
 * @param size           how many children it has
 * @param completed      children COMPLETED
 * @param failed         children FAILED for good
 * @param cancelled      children CANCELLED
 * @param unsuccessful   the children that did not complete, the failed ones first, then oldest first, at most
 *                       {@link #LISTED}
 * @param notified       display names of the people the children's notifications reached (a reminder's
 *                       recipients), at most {@link #LISTED}, in name order
 * @param notifiedCount  how many distinct people they reached in all
 */
public record BatchOutcome(UUID batchId, String label, int size, int completed, int failed, int cancelled,
        List<Child> unsuccessful, List<String> notified, int notifiedCount) {
    /** Most children and people an outcome lists. */
    public static final int LISTED = 20;

    /**
     * A child that did not complete.
     *
     * @param taskId    its id
     * @param kind      its kind
     * @param status    FAILED or CANCELLED
     * @param lastError why, as its ledger row says
     * @param params    its kind's parameters (JSON text), e.g. a reminder's ticket
     */
    public record Child(UUID taskId, TaskKind kind, TaskStatus status, String lastError, String params) {
    }
}
