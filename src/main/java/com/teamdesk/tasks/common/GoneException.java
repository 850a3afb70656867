package com.teamdesk.tasks.common;

/** The resource existed but is gone for good (an expired export CSV, R13). Maps to HTTP 410. */
public class GoneException extends AppException {
    private static final long serialVersionUID = 1L;

    /**
     * @param code   stable machine code, e.g. {@code task.not_found}
     * @param detail human-readable explanation
     */
    public GoneException(String code, String detail) {
        super(410, "Gone", code, detail);
    }
}
