package com.teamdesk.tasks.task.idempotency;

import com.teamdesk.tasks.common.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;

/**
 * A request carrying an {@code Idempotency-Key} (R25): who sent it, the key, and the fingerprint
 * of what was asked (method, path and body), so that a replay with a different request under the
 * same key is recognised.
 *
 * @param callerId    the authenticated user; keys are per caller
 * @param key         the header's value, 1-255 characters
 * @param fingerprint hex SHA-256 of method, path and body
 */
public record IdempotentRequest(UUID callerId, String key, String fingerprint) {

    /** Longest accepted key, in characters. */
    public static final int MAX_KEY = 255;

    /** The request header that carries the key (R25). */
    public static final String HEADER = "Idempotency-Key";

    /**
     * @param key  the {@code Idempotency-Key} header, or null when absent
     * @param body the request body in a canonical form (the parsed JSON re-serialised), or "" when none
     * @return the request, or null when the header is absent
     * @throws InvalidInputException ({@code idempotency.key_invalid}) empty or longer than {@link #MAX_KEY}
     */
    public static IdempotentRequest of(UUID callerId, String key, String method, String path, String body) {
        if (key == null) {
            return null;
        }
        if (key.isEmpty() || key.length() > MAX_KEY) {
            throw new InvalidInputException("idempotency.key_invalid",
                    "Idempotency-Key must be 1 to " + MAX_KEY + " characters long.");
        }
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update((method + ' ' + path + '\n').getBytes(StandardCharsets.UTF_8));
            sha.update(body.getBytes(StandardCharsets.UTF_8));
            return new IdempotentRequest(callerId, key, HexFormat.of().formatHex(sha.digest()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
