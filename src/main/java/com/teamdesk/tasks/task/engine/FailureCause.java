package com.teamdesk.tasks.task.engine;

/**
 * Why a run ended FAILED when the task's own code did not say it (issue 28): each cause has a fixed,
 * readable {@code lastError}, and the queue's failed reason of a run that the ledger learns about only from
 * the queue (R20) says which cause it was, so the member reads what happened instead of one message for
 * every case.
 */
public enum FailureCause {
    /** The queue's stalled check failed the job: its executions stopped renewing their locks (R6). */
    STALLED("job stalled more than allowable limit",
            "The task stopped responding and could not be completed; you can retry it."),
    /** The ledger was unreachable for longer than the outage budget (issue 28). */
    DATABASE_UNREACHABLE("infrastructure: database unreachable",
            "The task could not run because the database could not be reached for too long; you can retry it."),
    /** The queue ended the run for a reason the ledger did not record (its attempts were used up). */
    QUEUE_FAILED("",
            "The task failed after its attempts were used up and could not be completed; you can retry it.");

    private final String queueReason;
    private final String lastError;

    FailureCause(String queueReason, String lastError) {
        this.queueReason = queueReason;
        this.lastError = lastError;
    }

    /** @return the failed reason the queue stores for this cause (empty for {@link #QUEUE_FAILED}) */
    public String queueReason() {
        return queueReason;
    }

    /** @return the fixed {@code lastError} a member reads */
    public String lastError() {
        return lastError;
    }

    /**
     * @param failedReason the queue's failed reason of a job, or null
     * @return the cause it names; {@link #QUEUE_FAILED} for any other reason
     */
    public static FailureCause ofQueueReason(String failedReason) {
        for (FailureCause c : values()) {
            if (failedReason != null && !c.queueReason.isEmpty() && failedReason.startsWith(c.queueReason)) {
                return c;
            }
        }
        return QUEUE_FAILED;
    }
}
