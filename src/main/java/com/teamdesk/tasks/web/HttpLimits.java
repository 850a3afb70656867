package com.teamdesk.tasks.web;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The limits the API puts on a request before it does any work (docs/decisions.md "Limits"), and
 * the public base URL links are built from. All MicroProfile Config, overridable by environment
 * variables ({@code teamdesk.http.max-body-bytes} ← {@code TEAMDESK_HTTP_MAX_BODY_BYTES}).
 */
@ApplicationScoped
public class HttpLimits {

    @Inject
    @ConfigProperty(name = "teamdesk.http.max-body-bytes", defaultValue = "1048576")
    long maxBodyBytes;

    @Inject
    @ConfigProperty(name = "teamdesk.http.max-json-depth", defaultValue = "32")
    int maxJsonDepth;

    @Inject
    @ConfigProperty(name = "teamdesk.http.max-uri-chars", defaultValue = "8192")
    int maxUriChars;

    @Inject
    @ConfigProperty(name = "teamdesk.http.max-header-chars", defaultValue = "16384")
    int maxHeaderChars;

    @Inject
    @ConfigProperty(name = "teamdesk.jwt.max-token-chars", defaultValue = "8192")
    int maxTokenChars;

    @Inject
    @ConfigProperty(name = "teamdesk.jwt.clock-skew-s", defaultValue = "60")
    long clockSkewSeconds;

    @Inject
    @ConfigProperty(name = "teamdesk.public-base-url")
    Optional<String> publicBaseUrl;

    /** @return largest accepted request body, bytes (default 1 MiB); larger → 413 */
    public long maxBodyBytes() {
        return maxBodyBytes;
    }

    /** @return deepest accepted JSON nesting (objects and arrays; default 32); deeper → 400 */
    public int maxJsonDepth() {
        return maxJsonDepth;
    }

    /** @return longest accepted request target (path and query), characters; longer → 414 */
    public int maxUriChars() {
        return maxUriChars;
    }

    /** @return longest accepted value of one header other than Authorization, characters; longer → 431 */
    public int maxHeaderChars() {
        return maxHeaderChars;
    }

    /** @return longest accepted {@code Authorization} header, characters; longer → 401 */
    public int maxTokenChars() {
        return maxTokenChars;
    }

    /** @return tolerance for {@code exp}, {@code nbf} and {@code iat} of a token, seconds (default 60) */
    public long clockSkewSeconds() {
        return clockSkewSeconds;
    }

    /**
     * @return the configured public base URL without a trailing slash (e.g.
     *         {@code https://desk.example.com}), or empty: links are then relative ({@code /api/v1/...})
     */
    public Optional<URI> publicBaseUrl() {
        return publicBaseUrl.map(String::strip).filter(s -> !s.isEmpty())
                .map(s -> URI.create(s.endsWith("/") ? s.substring(0, s.length() - 1) : s));
    }
}
