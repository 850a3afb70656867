package com.teamdesk.tasks.task.spi;

import com.teamdesk.tasks.common.InvalidInputException;
import java.util.function.Supplier;

/**
 * A permanent rejection of a run: retrying the same input cannot succeed, so the failure is final
 * at once (R11) and the queue is told not to retry. The {@link Reason} fixes the human-readable
 * {@code lastError} a member sees.
 */
public class TaskRejected extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why a run was rejected; each has a fixed message shown as {@code lastError}. */
    public enum Reason {
        /** The owner is no longer a member, or no longer staff for a TEAM-scope task (R15). */
        PERMISSION_LOST("Rejected: you no longer have permission for this task's scope."),
        /** The export's stored filters no longer validate. */
        INVALID_FILTERS("Rejected: the export filters are not valid."),
        /** The reminder's stored parameters no longer validate. */
        INVALID_REMINDER("Rejected: the reminder parameters are not valid."),
        /** The export matches more rows than the limit (R13). */
        TOO_LARGE("Rejected: the export matches more tickets than the export limit; narrow the filters and create a new export."),
        /** The reminder's ticket no longer exists in the team. */
        TICKET_GONE("Rejected: the ticket no longer exists."),
        /** The reminder's ticket was closed. */
        TICKET_CLOSED("Rejected: the ticket is closed."),
        /** The reminder has nobody to notify (no assignee, no staff). */
        NO_RECIPIENTS("Rejected: the reminder has no recipients."),
        /** The task's kind is not registered on this server (issue 29: removed, or not yet deployed here). */
        UNKNOWN_KIND("Rejected: this server does not run tasks of this kind.");

        private final String message;

        Reason(String message) {
            this.message = message;
        }

        /** @return the fixed human-readable text stored as {@code lastError} */
        public String message() {
            return message;
        }
    }

    private final Reason reason;

    /** @param reason why; {@code detail} is for logs only and never shown to members */
    public TaskRejected(Reason reason, String detail) {
        super(reason + ": " + detail);
        this.reason = reason;
    }

    /**
     * Parses stored input, turning a validation error into a rejection: what no longer validates
     * cannot succeed on a retry (R11).
     *
     * @param reason why, if {@code parse} refuses the input
     * @return what {@code parse} returned
     * @throws TaskRejected with {@code reason} when {@code parse} throws {@link InvalidInputException}
     */
    public static <T> T unlessInvalid(Reason reason, Supplier<T> parse) {
        try {
            return parse.get();
        } catch (InvalidInputException e) {
            throw new TaskRejected(reason, e.detail());
        }
    }

    /** @return why the run was rejected */
    public Reason reason() {
        return reason;
    }
}
