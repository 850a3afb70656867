package com.teamdesk.tasks.web;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.core.Response;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The application's error page ({@code WEB-INF/web.xml} maps every status and exception here): an
 * error the container or a framework raised with {@code sendError} — instead of its HTML page that
 * names the server product — is answered as {@code application/problem+json} with the same status.
 */
@WebServlet(ErrorPageServlet.PATH)
public class ErrorPageServlet extends HttpServlet {
    /** Location of the error page in {@code web.xml}. */
    public static final String PATH = "/_problem";
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = Logger.getLogger(ErrorPageServlet.class.getName());

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) {
        Object code = req.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = code instanceof Integer i && i >= 400 && i < 600 ? i : 404;
        Object error = req.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
        if (error instanceof Throwable t) {
            status = status < 500 ? 500 : status;
            LOG.log(Level.SEVERE, "Unhandled error answering " + req.getAttribute(RequestDispatcher.ERROR_REQUEST_URI), t);
        }
        Response.Status known = Response.Status.fromStatusCode(status);
        String title = known == null ? (status < 500 ? "Client Error" : "Server Error") : known.getReasonPhrase();
        String problemCode = status == 404 ? "resource.not_found" : status < 500 ? "request.rejected" : "internal";
        String detail = status < 500 ? title + "." : "An unexpected error occurred. It has been logged.";
        ServletProblems.write(resp, new Problem(status, title, problemCode, detail, null));
    }
}
