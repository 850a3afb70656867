package com.teamdesk.tasks.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.util.Map;

/**
 * Standard reason phrases on the status line (issue 34). Payara's HTTP engine has none for 422, 428 and
 * 429 ({@code HTTP/1.1 429 CUSTOM}) and older ones for 413, 414 and 416; this filter, first in
 * {@code web.xml} and on every dispatch, sets RFC 9110 / RFC 6585 phrases ({@link #PHRASES}) whenever the
 * status becomes one of those codes, through {@link GrizzlyBridge}. Status codes, headers and bodies are
 * unchanged; on a server without the bridge the engine's phrase stays.
 */
public class StatusLineFilter extends HttpFilter {
    private static final long serialVersionUID = 1L;

    /** Status code → the reason phrase sent for it. */
    static final Map<Integer, String> PHRASES = Map.of(
            413, "Content Too Large",
            414, "URI Too Long",
            416, "Range Not Satisfiable",
            422, "Unprocessable Content",
            428, "Precondition Required",
            429, "Too Many Requests",
            431, "Request Header Fields Too Large");

    @Override
    protected void doFilter(HttpServletRequest req, HttpServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        phrase(res, res.getStatus()); // an error dispatch: the status is already set
        chain.doFilter(req, new HttpServletResponseWrapper(res) {
            @Override
            public void setStatus(int sc) {
                super.setStatus(sc);
                phrase(res, sc);
            }
        });
    }

    private static void phrase(HttpServletResponse res, int status) {
        String phrase = PHRASES.get(status);
        if (phrase != null && !res.isCommitted()) {
            GrizzlyBridge.setReasonPhrase(res, status, phrase);
        }
    }
}
