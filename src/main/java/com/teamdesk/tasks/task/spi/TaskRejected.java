package com.teamdesk.tasks.task.spi;

import com.teamdesk.tasks.common.InvalidInputException;
import java.util.function.Supplier;

/**
 * A permanent rejection of a run: retrying the same input cannot succeed, so the failure is final
 * at once (R11) and the queue is told not to retry. The {@link RejectionReason} fixes the human-readable
 * {@code lastError} a member sees: the engine's in {@link CoreRejection}, a kind's in its own package.
 */
public class TaskRejected extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final RejectionReason reason;

    /** @param reason why; {@code detail} is for logs only and never shown to members */
    public TaskRejected(RejectionReason reason, String detail) {
        super(reason.name() + ": " + detail);
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
    public static <T> T unlessInvalid(RejectionReason reason, Supplier<T> parse) {
        try {
            return parse.get();
        } catch (InvalidInputException e) {
            throw new TaskRejected(reason, e.detail());
        }
    }

    /** @return why the run was rejected */
    public RejectionReason reason() {
        return reason;
    }
}
