package com.teamdesk.tasks.common;

/** A limit on concurrent resources (e.g. open event streams) is reached. Maps to HTTP 429. */
public class TooManyRequestsException extends AppException {
    private static final long serialVersionUID = 1L;

    /**
     * @param code   stable machine code, e.g. {@code events.too_many_streams}
     * @param detail human-readable explanation
     */
    public TooManyRequestsException(String code, String detail) {
        super(429, "Too Many Requests", code, detail);
    }
}
