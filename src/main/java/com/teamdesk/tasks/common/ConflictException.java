package com.teamdesk.tasks.common;

/** The resource is in a state that does not allow the action (e.g. retry of a task that is not FAILED). Maps to HTTP 409. */
public class ConflictException extends AppException {
    private static final long serialVersionUID = 1L;

    /**
     * @param code   stable machine code, e.g. {@code task.not_found}
     * @param detail human-readable explanation
     */
    public ConflictException(String code, String detail) {
        super(409, "Conflict", code, detail);
    }
}
