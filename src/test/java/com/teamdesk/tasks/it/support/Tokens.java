package com.teamdesk.tasks.it.support;

import jakarta.json.Json;
import jakarta.json.JsonObjectBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Mints RS256 JWTs as the identity provider would (JDK {@code Signature}, no extra library): the
 * claims the server requires ({@code iss}, {@code sub}, {@code upn}, {@code groups},
 * {@code iat}, {@code exp}, {@code jti}). The signing key comes from {@code TEAMDESK_JWT_PRIVATE_KEY}
 * (a PKCS#8 PEM file path, {@code file:} URL or the PEM text itself; {@code ./teamdesk test} sets
 * it to the development key). For the 401 cases: {@link #expired} and {@link #foreign} (signed by
 * a random key the server does not trust).
 */
public final class Tokens {
    /** Issuer the server verifies ({@code mp.jwt.verify.issuer}); override with {@code MP_JWT_VERIFY_ISSUER}. */
    public static final String ISSUER = env("MP_JWT_VERIFY_ISSUER", "https://teamdesk.dev/dev");

    private static PrivateKey devKey;
    private static PrivateKey foreignKey;

    private Tokens() {
    }

    /** @return a valid token (1 h) for the user, groups ["member"] */
    public static String of(UUID userId) {
        Instant now = Instant.now();
        return sign(devKey(), claims(userId, now, now.plus(Duration.ofHours(1))));
    }

    /** @return a correctly signed token for the user that expired an hour ago */
    public static String expired(UUID userId) {
        Instant now = Instant.now();
        return sign(devKey(), claims(userId, now.minus(Duration.ofHours(2)), now.minus(Duration.ofHours(1))));
    }

    /** @return an otherwise valid token signed by a key the server does not trust */
    public static String foreign(UUID userId) {
        Instant now = Instant.now();
        return sign(foreignKey(), claims(userId, now, now.plus(Duration.ofHours(1))));
    }

    /** @return a valid token with these claims added or replaced (e.g. {@code groups} without member) */
    public static String with(UUID userId, JsonObjectBuilder extra) {
        Instant now = Instant.now();
        return sign(devKey(), claims(userId, now, now.plus(Duration.ofHours(1))).addAll(extra));
    }

    /** @return the standard claims of a token for the user, issued at {@code iat}, expiring at {@code exp} */
    public static JsonObjectBuilder claims(UUID userId, Instant iat, Instant exp) {
        return Json.createObjectBuilder()
                .add("iss", ISSUER)
                .add("sub", userId.toString())
                .add("upn", "user-" + userId.toString().substring(0, 8))
                .add("groups", Json.createArrayBuilder().add("member"))
                .add("iat", iat.getEpochSecond())
                .add("exp", exp.getEpochSecond())
                .add("jti", UUID.randomUUID().toString());
    }

    /** @return the claims signed RS256 with the development key (the key the server trusts) */
    public static String signed(JsonObjectBuilder claims) {
        return sign(devKey(), claims);
    }

    /** @return the claims with {@code alg: none} and an empty signature */
    public static String unsigned(JsonObjectBuilder claims) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String header = Json.createObjectBuilder().add("alg", "none").add("typ", "JWT").build().toString();
        return b64.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(claims.build().toString().getBytes(StandardCharsets.UTF_8)) + ".";
    }

    /**
     * @return the claims signed HS256 with the server's PUBLIC key PEM as the HMAC secret (the
     *         algorithm-confusion attack); the key file is {@code MP_JWT_VERIFY_PUBLICKEY_LOCATION}
     */
    public static String hs256WithPublicKey(JsonObjectBuilder claims) {
        String location = env("MP_JWT_VERIFY_PUBLICKEY_LOCATION", "file:dev/jwt/public.pem");
        byte[] secret = pem(location).getBytes(StandardCharsets.US_ASCII);
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String header = Json.createObjectBuilder().add("alg", "HS256").add("typ", "JWT").build().toString();
        String input = b64.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(claims.build().toString().getBytes(StandardCharsets.UTF_8));
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return input + "." + b64.encodeToString(mac.doFinal(input.getBytes(StandardCharsets.US_ASCII)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String sign(PrivateKey key, JsonObjectBuilder claims) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String header = Json.createObjectBuilder().add("alg", "RS256").add("typ", "JWT").build().toString();
        String input = b64.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(claims.build().toString().getBytes(StandardCharsets.UTF_8));
        try {
            Signature s = Signature.getInstance("SHA256withRSA");
            s.initSign(key);
            s.update(input.getBytes(StandardCharsets.US_ASCII));
            return input + "." + b64.encodeToString(s.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign a test token", e);
        }
    }

    private static synchronized PrivateKey devKey() {
        if (devKey == null) {
            String setting = System.getenv("TEAMDESK_JWT_PRIVATE_KEY");
            if (setting == null || setting.isBlank()) {
                throw new IllegalStateException("TEAMDESK_JWT_PRIVATE_KEY is not set: run the tests with ./teamdesk test"
                        + " (or export it: the path of dev/jwt/private.pem)");
            }
            devKey = parsePkcs8(pem(setting.trim()));
        }
        return devKey;
    }

    private static synchronized PrivateKey foreignKey() {
        if (foreignKey == null) {
            try {
                KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
                g.initialize(2048);
                foreignKey = g.generateKeyPair().getPrivate();
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }
        return foreignKey;
    }

    private static String pem(String setting) {
        if (setting.startsWith("-----BEGIN")) {
            return setting;
        }
        Path file = Path.of(setting.startsWith("file:") ? setting.substring("file:".length()) : setting);
        try {
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read TEAMDESK_JWT_PRIVATE_KEY " + file, e);
        }
    }

    private static PrivateKey parsePkcs8(String pem) {
        if (!pem.contains("-----BEGIN PRIVATE KEY-----")) {
            throw new IllegalStateException("TEAMDESK_JWT_PRIVATE_KEY must be a PKCS#8 PEM (-----BEGIN PRIVATE KEY-----)");
        }
        String base64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        try {
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("TEAMDESK_JWT_PRIVATE_KEY is not an RSA PKCS#8 key", e);
        }
    }

    static String env(String name, String dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : v;
    }
}
