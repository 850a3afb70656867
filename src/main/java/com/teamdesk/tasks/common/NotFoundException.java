package com.teamdesk.tasks.common;

/** The resource does not exist or the caller may not know it exists (non-member: always 404). Maps to HTTP 404. */
public class NotFoundException extends AppException {
    private static final long serialVersionUID = 1L;

    /**
     * @param code   stable machine code, e.g. {@code task.not_found}
     * @param detail human-readable explanation
     */
    public NotFoundException(String code, String detail) {
        super(404, "Not Found", code, detail);
    }
}
