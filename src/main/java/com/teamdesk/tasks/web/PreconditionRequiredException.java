package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.AppException;

/** A conditional request came without its precondition (PATCH without {@code If-Match}). Maps to HTTP 428. */
public class PreconditionRequiredException extends AppException {
    private static final long serialVersionUID = 1L;

    /**
     * @param code   stable machine code, e.g. {@code ticket.if_match_required}
     * @param detail human-readable explanation
     */
    public PreconditionRequiredException(String code, String detail) {
        super(428, "Precondition Required", code, detail);
    }
}
