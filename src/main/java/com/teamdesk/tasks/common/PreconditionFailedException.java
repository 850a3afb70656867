package com.teamdesk.tasks.common;

/** A conditional request's precondition (If-Match version) did not hold. Maps to HTTP 412. */
public class PreconditionFailedException extends AppException {
    private static final long serialVersionUID = 1L;

    /**
     * @param code   stable machine code, e.g. {@code task.not_found}
     * @param detail human-readable explanation
     */
    public PreconditionFailedException(String code, String detail) {
        super(412, "Precondition Failed", code, detail);
    }
}
