package com.teamdesk.tasks.task.spi;

import java.io.Serializable;

/**
 * Why a run was rejected for good (R11): a name for logs and a fixed, member-facing message stored as
 * {@code lastError}. The engine's own reasons are {@link CoreRejection}; a kind declares its own in its package
 * (an enum implementing this interface), so no core type names a kind. Serializable, as the exception that carries
 * it.
 */
public interface RejectionReason extends Serializable {
    /** @return the reason's name, e.g. {@code TOO_LARGE} (logs, the exception's message) */
    String name();

    /** @return the fixed human-readable text stored as {@code lastError} */
    String message();
}
