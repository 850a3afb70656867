package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.AppException;

/**
 * A refusal of the request's form rather than its content: 413 body too large, 414 URI too
 * long, 415 media type or charset, 431 header too large, 400 malformed header or path. Mapped like
 * every {@link AppException}.
 */
public class HttpProblem extends AppException {
    private static final long serialVersionUID = 1L;

    /**
     * @param status HTTP status (4xx)
     * @param title  short title, e.g. {@code Payload Too Large}
     * @param code   stable machine code, e.g. {@code request.too_large}
     * @param detail human-readable explanation
     */
    public HttpProblem(int status, String title, String code, String detail) {
        super(status, title, code, detail);
    }

    /** @return 413 {@code request.too_large} for a body over {@code maxBytes} */
    public static HttpProblem tooLarge(long maxBytes) {
        return new HttpProblem(413, "Payload Too Large", "request.too_large",
                "The request body is larger than " + maxBytes + " bytes.");
    }

    /** @return 415 {@code request.unsupported_media_type} with this detail */
    public static HttpProblem unsupportedMediaType(String detail) {
        return new HttpProblem(415, "Unsupported Media Type", "request.unsupported_media_type", detail);
    }
}
