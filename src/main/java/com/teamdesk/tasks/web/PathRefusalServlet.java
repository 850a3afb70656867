package com.teamdesk.tasks.web;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Where {@link EnginePathGuard} sends a request whose path the HTTP engine cannot decode or normalise (issue 49):
 * every method answers 400 problem+json {@code request.path_invalid}, as {@link RequestFormFilter} answers the
 * same faults in paths the engine does decode. Requesting this path directly gets the same 400.
 */
@WebServlet(PathRefusalServlet.PATH)
public class PathRefusalServlet extends HttpServlet {
    /** The path, below the context root, that refused request paths are replaced by. */
    public static final String PATH = "/_refused-path";
    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) {
        ServletProblems.write(resp, new Problem(400, "Bad Request", "request.path_invalid",
                "The path is not valid: it must start with '/', be percent-encoded UTF-8 without an encoded NUL, slash"
                        + " or backslash, and hold no '.' or '..' segment.", null));
    }
}
