package com.teamdesk.tasks.common;

/** The caller is a member but lacks the role or scope for the action. Maps to HTTP 403. */
public class ForbiddenException extends AppException {
    private static final long serialVersionUID = 1L;

    /**
     * @param code   stable machine code, e.g. {@code task.not_found}
     * @param detail human-readable explanation
     */
    public ForbiddenException(String code, String detail) {
        super(403, "Forbidden", code, detail);
    }
}
