package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.Jsons;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Locale;
import java.util.UUID;

/**
 * The checks of a bearer credential that the platform's MP-JWT verification does not make, done
 * before it runs (RFC 6750, RFC 7519). Only refusals come from here: a token that passes still has
 * its signature, issuer and {@code exp} verified by the platform. Reading the claims before the
 * signature is checked is safe because nothing is ever granted on them.
 */
final class BearerToken {
    private static final String SCHEME = "bearer";

    private BearerToken() {
    }

    /**
     * @param header      the {@code Authorization} header value
     * @param maxChars    longest accepted header
     * @param now         the current instant
     * @param skewSeconds tolerance for {@code exp}, {@code nbf} and {@code iat}
     * @return why the credential is refused (a fixed text, safe to send), or null when its form and
     *         time claims are acceptable: scheme {@code Bearer} in any case, printable ASCII, three
     *         base64url parts, {@code alg} RS256, {@code exp} present and not passed, {@code nbf}
     *         and {@code iat} not in the future, {@code sub} a UUID string, {@code groups} (when present) an
     *         array of strings
     */
    static String check(String header, int maxChars, Instant now, long skewSeconds) {
        if (header.length() > maxChars) {
            return "The Authorization header is longer than " + maxChars + " characters.";
        }
        for (int i = 0; i < header.length(); i++) {
            char c = header.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return "The Authorization header may hold only printable ASCII.";
            }
        }
        int space = header.indexOf(' ');
        if (space < 0 || !header.substring(0, space).toLowerCase(Locale.ROOT).equals(SCHEME)) {
            return "Send the token as 'Authorization: Bearer <token>'.";
        }
        String token = token(header);
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty() || parts[2].isEmpty()) {
            return "The bearer token is not a signed JWT.";
        }
        JsonObject head = json(parts[0]);
        JsonObject claims = json(parts[1]);
        if (head == null || claims == null) {
            return "The bearer token is not a signed JWT.";
        }
        if (!"RS256".equals(string(head.get("alg")))) {
            return "The bearer token must be signed with RS256.";
        }
        Long exp = seconds(claims, "exp");
        Long nbf = seconds(claims, "nbf");
        Long iat = seconds(claims, "iat");
        if (exp == null || invalid(exp) || invalid(nbf) || invalid(iat)) {
            return "The bearer token's exp, nbf and iat must be NumericDate values (exp is required).";
        }
        long t = now.getEpochSecond();
        if (t > exp + skewSeconds) {
            return "The bearer token has expired.";
        }
        if (nbf != null && t < nbf - skewSeconds) {
            return "The bearer token is not valid yet (nbf).";
        }
        if (iat != null && iat > t + skewSeconds) {
            return "The bearer token was issued in the future (iat).";
        }
        String sub = string(claims.get("sub"));
        if (sub == null || !isUuid(sub)) {
            return "The bearer token's sub must be a user id (a UUID string).";
        }
        if (claims.containsKey("groups") && !stringArray(claims.get("groups"))) {
            // MP-JWT 2.1 defines groups as an array of strings; the platform reads a lone string as one group
            return "The bearer token's groups must be an array of strings.";
        }
        return null;
    }

    private static boolean invalid(Long seconds) {
        return seconds != null && seconds == Long.MIN_VALUE;
    }

    /** @return the credential after the scheme and its spaces */
    static String token(String header) {
        int space = header.indexOf(' ');
        return space < 0 ? "" : header.substring(space + 1).strip();
    }

    private static JsonObject json(String base64url) {
        try {
            String text = new String(Base64.getUrlDecoder().decode(base64url), StandardCharsets.UTF_8);
            try (JsonReader r = Jsons.PROVIDER.createReader(new StringReader(text))) {
                JsonValue v = r.readValue();
                return v instanceof JsonObject o ? o : null;
            }
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static boolean stringArray(JsonValue v) {
        return v instanceof JsonArray a && a.stream().allMatch(JsonString.class::isInstance);
    }

    private static String string(JsonValue v) {
        return v instanceof JsonString s ? s.getString() : null;
    }

    /** @return the claim as epoch seconds; null when absent; {@link Long#MIN_VALUE} when not a number in range */
    private static Long seconds(JsonObject claims, String name) {
        JsonValue v = claims.get(name);
        if (v == null) {
            return null;
        }
        if (!(v instanceof JsonNumber n)) {
            return Long.MIN_VALUE;
        }
        try {
            long s = n.bigDecimalValue().longValueExact();
            return Math.abs(s) > 253_402_300_799L ? Long.MIN_VALUE : s;
        } catch (ArithmeticException e) {
            return Long.MIN_VALUE;
        }
    }

    private static boolean isUuid(String s) {
        if (s.length() != 36) {
            return false;
        }
        try {
            return UUID.fromString(s).toString().equalsIgnoreCase(s);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
