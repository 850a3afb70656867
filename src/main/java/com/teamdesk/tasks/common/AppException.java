package com.teamdesk.tasks.common;

/**
 * Base of the errors a client can cause. Each carries the HTTP status it maps to, a stable
 * machine {@code code} (e.g. {@code task.not_failed}) and a human {@code detail}. Mapped once
 * to {@code application/problem+json} by the web layer; never carries a stack trace to clients.
 */
public abstract class AppException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String code;
    private final String title;

    protected AppException(int status, String title, String code, String detail) {
        super(detail);
        this.status = status;
        this.title = title;
        this.code = code;
    }

    /** HTTP status this error maps to (400, 403, 404, 409, 410, 412, 422). */
    public int status() { return status; }

    /** Stable machine-readable code, e.g. {@code export.too_large}. */
    public String code() { return code; }

    /** Short human title of the problem type. */
    public String title() { return title; }

    /** Human-readable explanation for this occurrence. */
    public String detail() { return getMessage(); }
}
