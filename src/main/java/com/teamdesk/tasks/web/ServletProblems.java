package com.teamdesk.tasks.web;

import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Writes a {@link Problem} straight to a servlet response, for refusals made before JAX-RS runs. */
final class ServletProblems {
    private ServletProblems() {
    }

    /**
     * Replaces whatever the response holds with the problem as {@code application/problem+json}.
     * A client that went away is ignored: there is nobody left to tell.
     */
    static void write(HttpServletResponse response, Problem problem) {
        if (response.isCommitted()) {
            return;
        }
        response.resetBuffer();
        response.setStatus(problem.status());
        response.setContentType(Problem.MEDIA_TYPE);
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        byte[] body = problem.toJson().getBytes(StandardCharsets.UTF_8);
        response.setContentLength(body.length);
        try {
            response.getOutputStream().write(body);
            response.flushBuffer();
        } catch (IOException | IllegalStateException e) {
            // The client went away.
        }
    }
}
