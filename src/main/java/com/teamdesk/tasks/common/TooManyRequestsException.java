package com.teamdesk.tasks.common;

/**
 * A limit on concurrent resources (e.g. open event streams) is reached. Maps to HTTP 429 with
 * {@code Retry-After} ({@link #retryAfterSeconds()}).
 */
public class TooManyRequestsException extends AppException {
    private static final long serialVersionUID = 1L;
    private final int retryAfterSeconds;

    /**
     * @param code              stable machine code, e.g. {@code events.too_many_streams}
     * @param detail            human-readable explanation (what is open, what to do)
     * @param retryAfterSeconds when a retry may succeed (seconds, at least 1), sent as {@code Retry-After}
     */
    public TooManyRequestsException(String code, String detail, int retryAfterSeconds) {
        super(429, "Too Many Requests", code, detail);
        this.retryAfterSeconds = Math.max(1, retryAfterSeconds);
    }

    /** @return the {@code Retry-After} of the answer (seconds, at least 1) */
    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
