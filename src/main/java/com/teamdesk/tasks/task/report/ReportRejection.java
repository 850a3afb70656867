package com.teamdesk.tasks.task.report;

import com.teamdesk.tasks.task.spi.RejectionReason;

/** Why a batch report is rejected for good (R11); each message is its {@code lastError}. */
public enum ReportRejection implements RejectionReason {
    /** The task is no batch's completion (made some other way than by its batch's last child, R52). */
    NOT_A_COMPLETION("Rejected: a batch report runs only as a batch's completion."),
    /** Its batch is gone (retention, R29). */
    BATCH_GONE("Rejected: the batch no longer exists.");

    private final String message;

    ReportRejection(String message) {
        this.message = message;
    }

    @Override
    public String message() {
        return message;
    }
}
