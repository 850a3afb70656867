package com.teamdesk.tasks.task.reminder;

import com.teamdesk.tasks.task.spi.RejectionReason;

/** Why a reminder is rejected for good (R11, R14); each message is its {@code lastError}. */
public enum ReminderRejection implements RejectionReason {
    /** The reminder's stored parameters no longer validate. */
    INVALID_REMINDER("Rejected: the reminder parameters are not valid."),
    /** The reminder's ticket no longer exists in the team. */
    TICKET_GONE("Rejected: the ticket no longer exists."),
    /** The reminder's ticket was closed. */
    TICKET_CLOSED("Rejected: the ticket is closed."),
    /** The reminder has nobody to notify (no assignee, no staff). */
    NO_RECIPIENTS("Rejected: the reminder has no recipients.");

    private final String message;

    ReminderRejection(String message) {
        this.message = message;
    }

    @Override
    public String message() {
        return message;
    }
}
