package com.teamdesk.tasks.common;

/** Client input failed validation; nothing was changed. Maps to HTTP 400. */
public class InvalidInputException extends AppException {
    private static final long serialVersionUID = 1L;

    /**
     * @param code   stable machine code, e.g. {@code task.not_found}
     * @param detail human-readable explanation
     */
    public InvalidInputException(String code, String detail) {
        super(400, "Bad Request", code, detail);
    }
}
