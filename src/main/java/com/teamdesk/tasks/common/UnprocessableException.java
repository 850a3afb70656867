package com.teamdesk.tasks.common;

/**
 * The request is well-formed but cannot be processed as sent (e.g. an {@code Idempotency-Key} reused
 * for a different request, R25). Maps to HTTP 422.
 */
public class UnprocessableException extends AppException {
    private static final long serialVersionUID = 1L;

    /**
     * @param code   stable machine code, e.g. {@code idempotency.key_reused}
     * @param detail human-readable explanation
     */
    public UnprocessableException(String code, String detail) {
        super(422, "Unprocessable Content", code, detail);
    }
}
