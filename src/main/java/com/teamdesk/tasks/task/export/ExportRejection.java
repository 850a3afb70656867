package com.teamdesk.tasks.task.export;

import com.teamdesk.tasks.task.spi.RejectionReason;

/** Why an export is rejected for good (R11, R13); each message is its {@code lastError}. */
public enum ExportRejection implements RejectionReason {
    /** The export's stored filters no longer validate. */
    INVALID_FILTERS("Rejected: the export filters are not valid."),
    /** The export matches more rows than the limit (R13). */
    TOO_LARGE("Rejected: the export matches more tickets than the export limit; narrow the filters and create a new export.");

    private final String message;

    ExportRejection(String message) {
        this.message = message;
    }

    @Override
    public String message() {
        return message;
    }
}
