package com.teamdesk.tasks.web;

import jakarta.inject.Inject;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.core.MediaType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.logging.Logger;

/**
 * Refuses TRACE and CONNECT everywhere (405, {@link #refuseConnect}), and a request to {@code /api/*} whose form is wrong before any work is done, each as
 * {@code application/problem+json} (JAX-RS would otherwise answer some of these with the
 * container's HTML page, or fail on them):
 * <ul>
 * <li>request target longer than {@link HttpLimits#maxUriChars()} → 414 {@code request.uri_too_long};</li>
 * <li>a path with characters outside RFC 3986, bad percent-encoding, an encoded NUL, slash or
 * backslash, a {@code .}/{@code ..} segment (plain or encoded), or bytes that are not UTF-8 → 400
 * {@code request.path_invalid}; the same faults in the query → 400 {@code request.query_invalid};</li>
 * <li>a header value longer than {@link HttpLimits#maxHeaderChars()} → 431
 * {@code request.header_too_large}; control characters in a header → 400 {@code request.header_invalid};</li>
 * <li>a malformed {@code Content-Type}, or a charset other than UTF-8 → 415; a malformed
 * {@code Accept} → 400 {@code request.header_invalid};</li>
 * <li>{@code Content-Length} over {@link HttpLimits#maxBodyBytes()} → 413 {@code request.too_large}
 * at once, without reading the body (a chunked body is capped where it is read, RequestInput).</li>
 * </ul>
 * The credential itself is checked earlier, by {@link ProblemAuthenticationMechanism}.
 */
@WebFilter(urlPatterns = "/*", asyncSupported = true)
public class RequestFormFilter extends HttpFilter {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = Logger.getLogger(RequestFormFilter.class.getName());
    /** The methods named in the {@code Allow} header of a refused TRACE or CONNECT. */
    private static final String ALLOW = "GET, POST, PATCH, HEAD, OPTIONS";

    @Inject
    transient HttpLimits limits;

    @Override
    protected void doFilter(HttpServletRequest req, HttpServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        if (refuseConnect(req, res)) {
            return;
        }
        if ("TRACE".equals(req.getMethod())) {
            // Never echo a request (and its credentials) back, on any path.
            res.setHeader("Allow", ALLOW);
            ServletProblems.write(res, problem(405, "Method Not Allowed", "request.method_not_allowed",
                    "TRACE is not supported."));
            return;
        }
        if (!req.getRequestURI().startsWith("/api/")) {
            chain.doFilter(req, res);
            return;
        }
        Problem refusal = refusal(req);
        if (refusal != null) {
            LOG.fine(() -> refusal.status() + " " + refusal.code() + " " + req.getMethod());
            if (refusal.status() == 413) {
                res.setHeader("Connection", "close");
            }
            ServletProblems.write(res, refusal);
            return;
        }
        chain.doFilter(req, res);
    }

    /**
     * Answers a CONNECT (on any path, before its credential is looked at: the method is refused whoever asks)
     * with 405 problem+json {@code request.method_not_allowed} and closes the connection once the answer is
     * sent. Why the close: for CONNECT the HTTP engine (Grizzly) never sends {@code Content-Length} or chunks
     * (it expects a tunnel) and keeps reading the connection, so without it a client waits for the end of the
     * body until the idle timeout (30 s, issue 49). Called by {@link ProblemAuthenticationMechanism} (first)
     * and by this filter.
     *
     * @return true when the request was a CONNECT and has been answered
     */
    static boolean refuseConnect(HttpServletRequest req, HttpServletResponse res) {
        if (!"CONNECT".equals(req.getMethod())) {
            return false;
        }
        res.setHeader("Allow", ALLOW);
        res.setHeader("Connection", "close");
        ServletProblems.write(res, problem(405, "Method Not Allowed", "request.method_not_allowed",
                "CONNECT is not supported: this server is not a proxy."));
        GrizzlyBridge.connectionOf(req).abort();
        return true;
    }

    private Problem refusal(HttpServletRequest req) {
        String path = req.getRequestURI();
        String query = req.getQueryString();
        if (path.length() + (query == null ? 0 : query.length() + 1) > limits.maxUriChars()) {
            return problem(414, "URI Too Long", "request.uri_too_long",
                    "The request target is longer than " + limits.maxUriChars() + " characters.");
        }
        String pathFault = pathFault(path);
        if (pathFault != null) {
            return problem(400, "Bad Request", "request.path_invalid", pathFault);
        }
        if (query != null && !validEncoding(query, QUERY_CHARS)) {
            return problem(400, "Bad Request", "request.query_invalid",
                    "The query string is not valid percent-encoded UTF-8.");
        }
        for (String name : Collections.list(req.getHeaderNames())) {
            for (String value : Collections.list(req.getHeaders(name))) {
                if (!"Authorization".equalsIgnoreCase(name) && value.length() > limits.maxHeaderChars()) {
                    return problem(431, "Request Header Fields Too Large", "request.header_too_large",
                            "A header is longer than " + limits.maxHeaderChars() + " characters.");
                }
                for (int i = 0; i < value.length(); i++) {
                    char c = value.charAt(i);
                    if ((c < 0x20 && c != '\t') || c == 0x7f) {
                        return problem(400, "Bad Request", "request.header_invalid",
                                "A header holds control characters.");
                    }
                }
            }
        }
        String contentType = req.getHeader("Content-Type");
        if (contentType != null) {
            MediaType type;
            try {
                type = MediaType.valueOf(contentType);
            } catch (RuntimeException e) {
                return problem(415, "Unsupported Media Type", "request.unsupported_media_type",
                        "The Content-Type header is malformed.");
            }
            try {
                RequestInput.requireUtf8(type);
            } catch (HttpProblem e) {
                return problem(e.status(), e.title(), e.code(), e.detail());
            }
        }
        for (String accept : Collections.list(req.getHeaders("Accept"))) {
            for (String range : accept.split(",")) {
                String r = range.strip();
                if (r.isEmpty() || r.equals("*") || r.startsWith("*;")) {
                    continue;
                }
                try {
                    MediaType.valueOf(r);
                } catch (RuntimeException e) {
                    return problem(400, "Bad Request", "request.header_invalid", "The Accept header is malformed.");
                }
            }
        }
        long length = req.getContentLengthLong();
        if (length > limits.maxBodyBytes()) {
            HttpProblem p = HttpProblem.tooLarge(limits.maxBodyBytes());
            return problem(413, p.title(), p.code(), p.detail());
        }
        return null;
    }

    /** @return why the raw path is refused, or null */
    static String pathFault(String rawPath) {
        if (!validEncoding(rawPath, PATH_CHARS)) {
            return "The path is not valid percent-encoded UTF-8.";
        }
        if (rawPath.indexOf('%') < 0 && rawPath.indexOf('.') < 0) {
            return null; // the common path, on every request (EnginePathGuard): nothing encoded, no dot segment
        }
        String lower = rawPath.toLowerCase(java.util.Locale.ROOT);
        if (lower.contains("%00") || lower.contains("%2f") || lower.contains("%5c")) {
            return "The path holds an encoded NUL, slash or backslash.";
        }
        for (String segment : lower.split("/", -1)) {
            String s = segment.replace("%2e", ".");
            if (s.equals(".") || s.equals("..")) {
                return "The path holds a '.' or '..' segment.";
            }
        }
        return null;
    }

    /** RFC 3986 pchar plus '/': unreserved, sub-delims, ':' and '@' ('%' is checked separately). */
    private static final String PATH_CHARS = "-._~!$&'()*+,;=:@/";
    /** RFC 3986 query characters: pchar, '/' and '?'. */
    private static final String QUERY_CHARS = PATH_CHARS + "?";

    /**
     * @return true when {@code raw} holds only ASCII letters, digits and {@code allowed}, and
     *         percent-escapes of two hex digits whose decoded bytes are well-formed UTF-8
     */
    static boolean validEncoding(String raw, String allowed) {
        ByteArrayOutputStream bytes = null; // only when there is an escape: ASCII alone is well-formed UTF-8
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                int high = i + 2 < raw.length() ? hex(raw.charAt(i + 1)) : -1;
                int low = i + 2 < raw.length() ? hex(raw.charAt(i + 2)) : -1;
                if (high < 0 || low < 0) {
                    return false;
                }
                if (bytes == null) {
                    bytes = new ByteArrayOutputStream(raw.length());
                    bytes.write(raw.getBytes(StandardCharsets.US_ASCII), 0, i); // all ASCII so far
                }
                bytes.write(high * 16 + low);
                i += 2;
            } else if (c < 0x80 && (Character.isLetterOrDigit(c) || allowed.indexOf(c) >= 0)) {
                if (bytes != null) {
                    bytes.write(c);
                }
            } else {
                return false;
            }
        }
        if (bytes == null) {
            return true;
        }
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray()));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /** @return the value of an ASCII hex digit, or -1 ({@link Character#digit} also takes other scripts' digits) */
    private static int hex(char c) {
        return c < 0x80 ? Character.digit(c, 16) : -1;
    }

    private static Problem problem(int status, String title, String code, String detail) {
        return new Problem(status, title, code, detail, null);
    }
}
