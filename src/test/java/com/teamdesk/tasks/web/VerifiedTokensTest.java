package com.teamdesk.tasks.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import jakarta.security.enterprise.CallerPrincipal;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import java.time.Instant;
import java.util.Set;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.junit.jupiter.api.Test;

/** The verified-token cache: exact token only, never past {@code exp}, only VALID JWT results, bounded. */
class VerifiedTokensTest {

    private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

    @Test
    void aVerifiedTokenIsFoundUntilItsExpAndNotASecondLonger() {
        VerifiedTokens cache = new VerifiedTokens(10);
        CredentialValidationResult valid = valid("ada", NOW.getEpochSecond() + 60);
        cache.put("t1", valid);
        assertSame(valid, cache.get("t1", NOW));
        assertSame(valid, cache.get("t1", NOW.plusSeconds(59)));
        assertNull(cache.get("t1", NOW.plusSeconds(60)), "exp is exclusive, no skew");
        assertEquals(0, cache.size(), "the expired entry is gone");
    }

    @Test
    void onlyTheExactTokenMatches() {
        VerifiedTokens cache = new VerifiedTokens(10);
        cache.put("header.claims.signature", valid("ada", NOW.getEpochSecond() + 60));
        assertNull(cache.get("header.claims.signaturf", NOW));
        assertNull(cache.get("header.claims.", NOW));
    }

    @Test
    void invalidResultsAndNonJwtPrincipalsAreNotKept() {
        VerifiedTokens cache = new VerifiedTokens(10);
        cache.put("bad", CredentialValidationResult.INVALID_RESULT);
        cache.put("none", CredentialValidationResult.NOT_VALIDATED_RESULT);
        cache.put("plain", new CredentialValidationResult("ada", Set.of("member")));
        cache.put("no-exp", valid("ada", 0));
        assertEquals(0, cache.size());
    }

    @Test
    void theCacheIsBoundedAndZeroTurnsItOff() {
        VerifiedTokens cache = new VerifiedTokens(2);
        cache.put("a", valid("a", NOW.getEpochSecond() + 60));
        cache.put("b", valid("b", NOW.getEpochSecond() + 60));
        cache.put("c", valid("c", NOW.getEpochSecond() + 60));
        assertEquals(1, cache.size(), "full: emptied, then the new one kept");
        VerifiedTokens off = new VerifiedTokens(0);
        off.put("a", valid("a", NOW.getEpochSecond() + 60));
        assertNull(off.get("a", NOW));
    }

    /** As Payara's principal: a CallerPrincipal that is a JsonWebToken. */
    private static final class Jwt extends CallerPrincipal implements JsonWebToken {
        private final long exp;

        Jwt(String name, long exp) {
            super(name);
            this.exp = exp;
        }

        @Override
        public String getName() {
            return super.getName();
        }

        @Override
            public Set<String> getClaimNames() {
                return Set.of("exp");
            }

            @Override
            @SuppressWarnings("unchecked")
        public <T> T getClaim(String claimName) {
            return "exp".equals(claimName) ? (T) Long.valueOf(exp) : null;
        }
    }

    private static CredentialValidationResult valid(String name, long exp) {
        return new CredentialValidationResult(new Jwt(name, exp), Set.of("member"));
    }
}
