package com.teamdesk.tasks.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.teamdesk.tasks.it.lifecycle.SharedServer;
import com.teamdesk.tasks.it.support.Api;
import com.teamdesk.tasks.it.support.Api.Reply;
import com.teamdesk.tasks.it.support.RawHttp;
import com.teamdesk.tasks.it.support.TestData;
import com.teamdesk.tasks.it.support.Tokens;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Every way a credential can be wrong answers 401 {@code application/problem+json} with
 * {@code WWW-Authenticate: Bearer error="invalid_token"} (issue 11, RFC 6750/7519): expired, not
 * yet valid, issued in the future, wrong issuer, wrong key, {@code alg: none}, HS256 keyed with the
 * public key, a {@code sub} that is not a UUID string or names no user, over-long and non-ASCII
 * headers. The scheme is case-insensitive: {@code bearer} with a valid token is accepted. The
 * clock skew is the default 60 s: times beyond two minutes off are refused, 20 s off accepted.
 */
@Execution(ExecutionMode.SAME_THREAD)
class TokenIT {
    @RegisterExtension
    static final SharedServer SERVER = SharedServer.apiOnly();

    final URL url = SERVER.url();

    final TestData data = TestData.fromEnvironment();

    @Test
    void everyBadCredentialIs401ProblemAndALowerCaseSchemeIsAccepted() {
        Api api = Api.at(url);
        UUID user = data.user("token-" + UUID.randomUUID().toString().substring(0, 8));
        Instant now = Instant.now();
        Instant hourAgo = now.minus(Duration.ofHours(1));
        Instant inHour = now.plus(Duration.ofHours(1));

        // The valid token and the lower-case scheme are accepted.
        String valid = Tokens.of(user);
        Reply ok = api.send("GET", api.uri("me"), null, null, List.of("Authorization", "Bearer " + valid));
        assertEquals(200, ok.status(), ok.toString());
        Reply lower = api.send("GET", api.uri("me"), null, null, List.of("Authorization", "bearer " + valid));
        assertEquals(200, lower.status(), "the scheme is case-insensitive (RFC 9110 11.1): " + lower);
        Reply upper = api.send("GET", api.uri("me"), null, null, List.of("Authorization", "BEARER " + valid));
        assertEquals(200, upper.status(), upper.toString());
        Reply skewed = api.get("me", Tokens.signed(Tokens.claims(user, now.plusSeconds(20), inHour)
                .add("nbf", now.plusSeconds(20).getEpochSecond())));
        assertEquals(200, skewed.status(), "20 s of clock skew is tolerated: " + skewed);

        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("expired", Tokens.expired(user));
        bad.put("expired beyond the skew", Tokens.signed(Tokens.claims(user, hourAgo, now.minusSeconds(120))));
        bad.put("not yet valid (nbf in 10 min)", Tokens.signed(Tokens.claims(user, now, inHour)
                .add("nbf", now.plus(Duration.ofMinutes(10)).getEpochSecond())));
        bad.put("issued in the future (iat in 10 min)", Tokens.signed(Tokens.claims(user,
                now.plus(Duration.ofMinutes(10)), inHour)));
        bad.put("wrong issuer", Tokens.signed(Tokens.claims(user, now, inHour).add("iss", "https://evil.example/")));
        bad.put("wrong key", Tokens.foreign(user));
        bad.put("alg none", Tokens.unsigned(Tokens.claims(user, now, inHour)));
        bad.put("HS256 keyed with the public key", Tokens.hs256WithPublicKey(Tokens.claims(user, now, inHour)));
        bad.put("sub not a UUID", Tokens.signed(Tokens.claims(user, now, inHour).add("sub", "ada")));
        bad.put("sub a number", Tokens.signed(Tokens.claims(user, now, inHour).add("sub", 42)));
        bad.put("sub missing", Tokens.signed(Json.createObjectBuilder(Tokens.claims(user, now, inHour).build()).remove("sub")));
        bad.put("exp a string", Tokens.signed(Tokens.claims(user, now, inHour).add("exp", "tomorrow")));
        bad.put("unknown user", Tokens.of(UUID.randomUUID()));
        bad.put("not a JWT", "not-a-jwt");
        bad.put("garbage parts", "a.b.c");

        for (Map.Entry<String, String> c : bad.entrySet()) {
            for (String path : List.of("me", "teams/" + UUID.randomUUID() + "/tickets")) {
                Reply r = api.get(path, c.getValue());
                assertInvalidToken(c.getKey() + " on " + path, r.status(), r.header("Content-Type"),
                        r.header("WWW-Authenticate"), r.body());
            }
        }
        Reply basic = api.send("GET", api.uri("me"), null, null, List.of("Authorization", "Basic YWRhOmFkYQ=="));
        assertInvalidToken("Basic scheme", basic.status(), basic.header("Content-Type"), basic.header("WWW-Authenticate"),
                basic.body());

        // Raw socket: HttpClient refuses non-ASCII header values, and over HTTP/2 a 100 KB header
        // breaks the stream before the server can answer.
        RawHttp.Answer nonAscii = RawHttp.send(api.root(), "GET", "/api/v1/me", null,
                "Authorization: Bearer \u00e9\u00ff" + valid);
        assertInvalidToken("non-ASCII Authorization", nonAscii.status(), nonAscii.header("Content-Type"),
                nonAscii.header("WWW-Authenticate"), nonAscii.text());
        RawHttp.Answer control = RawHttp.send(api.root(), "GET", "/api/v1/me", null, "Authorization: Bearer \u0001" + valid);
        assertInvalidToken("control character in Authorization", control.status(), control.header("Content-Type"),
                control.header("WWW-Authenticate"), control.text());
        RawHttp.Answer huge = RawHttp.send(api.root(), "GET", "/api/v1/me", null, "Authorization: Bearer " + "y".repeat(100_000));
        assertInvalidToken("100 KB Authorization", huge.status(), huge.header("Content-Type"),
                huge.header("WWW-Authenticate"), huge.text());

        // No credential at all is 401 too (RFC 6750 3.1: no error code then).
        Reply none = api.get("me", null);
        assertEquals(401, none.status(), none.toString());
        assertEquals("auth.required", none.problemCode().orElseThrow());
    }

    /**
     * Issue 16's verified-token cache: a token is answered with its own identity on every request, tokens
     * of two users interleaved never borrow each other's identity, and a token that differs from a
     * verified one in its signature alone is still refused.
     */
    @Test
    void repeatedTokensKeepTheirOwnIdentityAndATamperedCopyIsRefused() {
        Api api = Api.at(url);
        UUID ada = data.user("cache-a-" + UUID.randomUUID().toString().substring(0, 8));
        UUID bob = data.user("cache-b-" + UUID.randomUUID().toString().substring(0, 8));
        String adaToken = Tokens.of(ada);
        String bobToken = Tokens.of(bob);
        for (int i = 0; i < 3; i++) {
            for (Map.Entry<UUID, String> e : Map.of(ada, adaToken, bob, bobToken).entrySet()) {
                Reply r = api.get("me", e.getValue());
                assertEquals(200, r.status(), r.toString());
                assertTrue(r.body().contains(e.getKey().toString()), "round " + i + ": " + r.body());
            }
        }
        char last = adaToken.charAt(adaToken.length() - 2);
        String tampered = adaToken.substring(0, adaToken.length() - 2) + (last == 'A' ? 'B' : 'A')
                + adaToken.charAt(adaToken.length() - 1);
        Reply r = api.get("me", tampered);
        assertInvalidToken("a verified token with one signature character changed", r.status(), r.header("Content-Type"),
                r.header("WWW-Authenticate"), r.body());
    }

    /**
     * Issue 16's remembered users (KnownUsers): a {@code sub} that names no user is refused on every
     * request, never remembered as known; once the user exists the same token is accepted.
     */
    @Test
    void anUnknownSubjectIsRefusedUntilTheUserExists() {
        Api api = Api.at(url);
        UUID later = UUID.randomUUID();
        String token = Tokens.of(later);
        for (int i = 0; i < 2; i++) {
            Reply r = api.get("me", token);
            assertInvalidToken("unknown user, request " + i, r.status(), r.header("Content-Type"),
                    r.header("WWW-Authenticate"), r.body());
        }
        String name = "later-" + later.toString().substring(0, 8);
        data.exec("INSERT INTO app_user (id, username, display_name) VALUES (?, ?, ?)", later, name, "User " + name);
        Reply ok = api.get("me", token);
        assertEquals(200, ok.status(), ok.toString());
        assertTrue(ok.body().contains(later.toString()), ok.body());
    }

    private static void assertInvalidToken(String what, int status, String contentType, String wwwAuthenticate, String body) {
        assertEquals(401, status, what + ": " + body);
        assertTrue(contentType != null && contentType.startsWith("application/problem+json"), what + ": " + contentType);
        assertEquals("Bearer error=\"invalid_token\"", wwwAuthenticate, what);
        try (JsonReader r = Json.createReader(new StringReader(body))) {
            JsonObject p = r.readObject();
            assertEquals("auth.required", p.getString("code"), what);
            assertEquals(401, p.getInt("status"), what);
        }
        assertTrue(!body.contains("Payara"), what + " reveals the server: " + body);
    }
}
