package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.AppException;

/**
 * A verified token that still cannot be used (its {@code sub} names no user). Maps to 401
 * {@code auth.required} with {@code WWW-Authenticate: Bearer error="invalid_token"} (RFC 6750).
 */
public class InvalidTokenException extends AppException {
    private static final long serialVersionUID = 1L;

    /** @param detail human-readable explanation */
    public InvalidTokenException(String detail) {
        super(401, "Unauthorized", "auth.required", detail);
    }
}
