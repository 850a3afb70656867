package com.teamdesk.tasks.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.annotation.WebFilter;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Security headers on the console's page and assets ({@code /}, {@code /index.html}, {@code /console/*}):
 * a strict Content-Security-Policy (scripts, styles and connections only from this origin, no inline
 * code, no framing), {@code X-Content-Type-Options: nosniff}, no referrer, and revalidation so a new
 * deployment's assets are used at once. The API ({@code /api/*}) and the health/metrics endpoints keep
 * their own answers untouched.
 */
@WebFilter(urlPatterns = "/*", asyncSupported = true)
public class ConsoleHeadersFilter extends HttpFilter {
    private static final long serialVersionUID = 1L;

    /** The console's policy: everything from this origin only; no inline script or style; never framed. */
    public static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
            + " connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self';"
            + " frame-ancestors 'none'";

    @Override
    protected void doFilter(HttpServletRequest req, HttpServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        String path = req.getRequestURI();
        if (!path.equals("/") && !path.equals("/index.html") && !path.startsWith("/console/")) {
            chain.doFilter(req, res);
            return;
        }
        res.setHeader("Content-Security-Policy", CSP);
        res.setHeader("X-Content-Type-Options", "nosniff");
        res.setHeader("X-Frame-Options", "DENY");
        res.setHeader("Referrer-Policy", "no-referrer");
        res.setHeader("Cache-Control", "no-cache");
        chain.doFilter(req, res);
    }
}
