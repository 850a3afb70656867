package com.teamdesk.tasks.task.escalation;

import com.teamdesk.tasks.task.spi.RejectionReason;

/** Why an escalation is rejected for good (R11); each message is its {@code lastError}. */
public enum EscalationRejection implements RejectionReason {
    /** The escalation's stored parameters no longer validate. */
    INVALID_ESCALATION("Rejected: the escalation parameters are not valid.");

    private final String message;

    EscalationRejection(String message) {
        this.message = message;
    }

    @Override
    public String message() {
        return message;
    }
}
