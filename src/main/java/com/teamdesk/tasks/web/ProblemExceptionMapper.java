package com.teamdesk.tasks.web;

import com.teamdesk.tasks.platform.DatabaseUnavailable;

import com.teamdesk.tasks.common.AppException;
import com.teamdesk.tasks.common.TooManyRequestsException;
import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.ForbiddenException;
import jakarta.ws.rs.NotAcceptableException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotAuthorizedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The one place where exceptions become HTTP answers: every error of the API is
 * {@code application/problem+json} (RFC 9457) with a stable {@code code}.
 *
 * <ul>
 * <li>{@link AppException} (also as the cause of a wrapper) → its status and code; a
 * {@link TooManyRequestsException} also carries {@code Retry-After};</li>
 * <li>no or unusable token → 401 {@code auth.required}; a token without the {@code member}
 * group → 403 {@code auth.forbidden};</li>
 * <li>JAX-RS routing errors → 404 {@code resource.not_found}, 405, 406, 415; a body JAX-RS could
 * not read → 400 {@code request.malformed};</li>
 * <li>a lost or unreachable database ({@link DatabaseUnavailable}: PostgreSQL restarted, its backends
 * terminated, the pool unable to hand out a working connection), however wrapped → 503
 * {@code service.unavailable} with {@code Retry-After: }{@value #RETRY_AFTER_SECONDS}; the pool heals
 * by itself (docs/decisions.md "Pool healing"), so a client retries. One WARNING line, no stack
 * trace, no exception text sent;</li>
 * <li>anything else → 500 {@code internal} with a generic detail; the exception is logged, never
 * sent.</li>
 * </ul>
 */
@Provider
public class ProblemExceptionMapper implements ExceptionMapper<Throwable> {
    private static final Logger LOG = Logger.getLogger(ProblemExceptionMapper.class.getName());
    /** {@code WWW-Authenticate} of a refused credential (RFC 6750 §3.1). */
    static final String INVALID_TOKEN = "Bearer error=\"invalid_token\"";
    /** {@code Retry-After} (seconds) of a 503 {@code service.unavailable}. */
    static final int RETRY_AFTER_SECONDS = 5;

    @Context
    UriInfo uriInfo;

    @Override
    public Response toResponse(Throwable e) {
        AppException app = appCause(e);
        if (app != null) {
            logClientError(app.status(), app.code());
            Response.ResponseBuilder b = problem(app.status(), app.title(), app.code(), app.detail());
            if (app instanceof TooManyRequestsException tooMany) {
                b.header(HttpHeaders.RETRY_AFTER, tooMany.retryAfterSeconds());
            }
            return (app.status() == 401 ? b.header(HttpHeaders.WWW_AUTHENTICATE, INVALID_TOKEN) : b).build();
        }
        if (e instanceof WebApplicationException wae && wae.getResponse() != null
                && wae.getResponse().getStatus() >= 400 && wae.getResponse().getStatus() < 500) {
            logClientError(wae.getResponse().getStatus(), e.getClass().getSimpleName());
        }
        if (e instanceof NotAuthorizedException) {
            return problem(401, "Unauthorized", "auth.required", "A valid bearer token is required.")
                    .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer").build();
        }
        if (e instanceof ForbiddenException) {
            return problem(403, "Forbidden", "auth.forbidden", "The token does not grant access to this API.").build();
        }
        if (e instanceof NotFoundException) {
            return problem(404, "Not Found", "resource.not_found", "No such resource.").build();
        }
        if (e instanceof NotAllowedException na) {
            Response.ResponseBuilder b = problem(405, "Method Not Allowed", "request.method_not_allowed",
                    "This resource does not support that method.");
            String allow = na.getResponse().getHeaderString(HttpHeaders.ALLOW);
            return (allow == null ? b : b.header(HttpHeaders.ALLOW, allow)).build();
        }
        if (e instanceof NotSupportedException) {
            return problem(415, "Unsupported Media Type", "request.unsupported_media_type",
                    "Send the body as application/json.").build();
        }
        if (e instanceof NotAcceptableException) {
            return problem(406, "Not Acceptable", "request.not_acceptable",
                    "This resource cannot answer in the media type asked for.").build();
        }
        if (e instanceof BadRequestException) {
            return problem(400, "Bad Request", "request.malformed", "The request could not be read.").build();
        }
        if (e instanceof WebApplicationException wae && wae.getResponse() != null
                && wae.getResponse().getStatus() >= 400 && wae.getResponse().getStatus() < 500) {
            // Other 4xx of JAX-RS itself (e.g. a parameter it could not convert): never a 500.
            int status = wae.getResponse().getStatus();
            String reason = Response.Status.fromStatusCode(status) == null ? "Client Error"
                    : Response.Status.fromStatusCode(status).getReasonPhrase();
            return problem(status, reason, "request.rejected", reason + ".").build();
        }
        if (DatabaseUnavailable.isCause(e)) {
            LOG.warning(() -> "Database unavailable answering " + path() + ": " + rootSummary(e));
            return problem(503, "Service Unavailable", "service.unavailable",
                    "The service is temporarily unavailable. Retry later.")
                    .header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS).build();
        }
        LOG.log(Level.SEVERE, "Unexpected error answering " + (uriInfo == null ? "?" : uriInfo.getRequestUri()), e);
        return problem(500, "Internal Server Error", "internal",
                "An unexpected error occurred. It has been logged.").build();
    }

    /** Client errors are routine: one line at FINE, never a stack trace (server errors keep theirs). */
    private void logClientError(int status, String code) {
        if (LOG.isLoggable(Level.FINE)) {
            LOG.fine(status + " " + code + " " + path());
        }
    }

    private Response.ResponseBuilder problem(int status, String title, String code, String detail) {
        return new Problem(status, title, code, detail, path()).response();
    }

    private String path() {
        try {
            return uriInfo == null ? null : uriInfo.getRequestUri().getRawPath();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** @return class and message of the innermost cause of {@code e}, for a one-line log */
    private static String rootSummary(Throwable e) {
        Throwable root = e;
        for (int i = 0; i < 32 && root.getCause() != null && root.getCause() != root; i++) {
            root = root.getCause();
        }
        return root.getClass().getName() + ": " + root.getMessage();
    }

    /** @return the AppException among {@code e} and its causes (wrapped by interceptors or EJB), or null */
    private static AppException appCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof AppException a) {
                return a;
            }
        }
        return null;
    }
}
