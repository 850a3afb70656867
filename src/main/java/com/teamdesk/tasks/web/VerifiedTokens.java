package com.teamdesk.tasks.web;

import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import java.security.Principal;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * A bounded cache of bearer tokens the platform's MP-JWT identity store has already verified (signature,
 * issuer, expiry), so that the next request with the same token skips the signature check, the claims
 * parsing and the identity-store look-up (issue 16: the request path's authentication cost).
 *
 * <p>The key is the whole compact token (header, claims and signature), so a token whose any byte differs
 * is a different entry. An entry is used only while {@code now < exp} of its token (no skew: a cached
 * token is never accepted longer than the platform would); {@code nbf}, {@code iat} and the token's form
 * are still checked on every request by {@link BearerToken#check} before the cache is asked. At most
 * {@code maxEntries} entries: when full, the cache is emptied and refills from live traffic (tokens are
 * short-lived; an LRU would buy little). Thread-safe.
 */
final class VerifiedTokens {

    private record Entry(CredentialValidationResult result, long expEpochSecond) {
    }

    private final int maxEntries;
    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

    /** @param maxEntries most tokens kept; 0 turns the cache off */
    VerifiedTokens(int maxEntries) {
        if (maxEntries < 0) {
            throw new IllegalArgumentException("maxEntries must not be negative: " + maxEntries);
        }
        this.maxEntries = maxEntries;
    }

    /**
     * @return the platform's earlier VALID result for exactly this token while it has not expired at
     *         {@code now}, else null (an expired entry is removed)
     */
    CredentialValidationResult get(String token, Instant now) {
        Entry e = entries.get(token);
        if (e == null) {
            return null;
        }
        if (now.getEpochSecond() >= e.expEpochSecond()) {
            entries.remove(token, e);
            return null;
        }
        return e.result();
    }

    /**
     * Keeps a result of the platform's identity store: only a VALID one whose caller principal is a
     * {@link JsonWebToken} with an expiry; anything else is ignored.
     */
    void put(String token, CredentialValidationResult result) {
        Objects.requireNonNull(token, "token");
        if (maxEntries == 0 || result == null || result.getStatus() != CredentialValidationResult.Status.VALID) {
            return;
        }
        Principal p = result.getCallerPrincipal();
        if (!(p instanceof JsonWebToken jwt) || jwt.getExpirationTime() <= 0) {
            return;
        }
        if (entries.size() >= maxEntries) {
            entries.clear();
        }
        entries.put(token, new Entry(result, jwt.getExpirationTime()));
    }

    /** @return how many tokens are kept now */
    int size() {
        return entries.size();
    }
}
