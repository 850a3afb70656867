package com.teamdesk.tasks.it.kind;

import com.teamdesk.tasks.task.spi.RejectionReason;

/** The PROBE kind's own rejection reason: its message is the {@code lastError} members see (R11). */
public enum ProbeRejection implements RejectionReason {
    /** The probe was asked to reject itself. */
    PROBE_REFUSED("Rejected: the probe was asked to refuse.");

    private final String message;

    ProbeRejection(String message) {
        this.message = message;
    }

    @Override
    public String message() {
        return message;
    }
}
