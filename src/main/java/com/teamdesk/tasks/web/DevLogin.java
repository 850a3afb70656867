package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.team.TeamDirectory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The console's development sign-in (issue 15): lists the users and mints an RS256 token for the one
 * picked, signed with the development private key ({@code teamdesk.dev-login.private-key}, a PKCS#8
 * PEM file). It is on only when {@code teamdesk.dev-login.enabled=true} AND the key the server
 * verifies tokens with ({@code mp.jwt.verify.publickey.location} or {@code mp.jwt.verify.publickey})
 * is the public half of that private key: with any other (a production) key it stays off, and the
 * startup log says why. Off, its endpoints answer 404 as if they did not exist.
 */
@ApplicationScoped
public class DevLogin {
    private static final Logger LOG = Logger.getLogger(DevLogin.class.getName());

    @Inject
    @ConfigProperty(name = "teamdesk.dev-login.enabled", defaultValue = "false")
    boolean requested;

    @Inject
    @ConfigProperty(name = "teamdesk.dev-login.private-key")
    Optional<String> privateKeyFile;

    @Inject
    @ConfigProperty(name = "mp.jwt.verify.publickey.location")
    Optional<String> publicKeyLocation;

    @Inject
    @ConfigProperty(name = "mp.jwt.verify.publickey")
    Optional<String> publicKeyText;

    @Inject
    @ConfigProperty(name = "mp.jwt.verify.issuer", defaultValue = "https://teamdesk.dev/dev")
    String issuer;

    /** Usernames whose dev tokens carry the {@code operator} group. */
    @Inject
    @ConfigProperty(name = "teamdesk.dev-login.operators", defaultValue = "ops")
    List<String> operators;

    /** Lifetime of a minted token, seconds. */
    @Inject
    @ConfigProperty(name = "teamdesk.dev-login.token-ttl-s", defaultValue = "43200")
    long ttlSeconds;

    @Inject
    Clock clock;

    @Inject
    TeamDirectory directory;

    private volatile PrivateKey signingKey;
    private volatile boolean decided;

    /** Decides at startup, so the log tells at once whether dev sign-in is on and, if refused, why. */
    void onStart(@Observes @Initialized(ApplicationScoped.class) Object ignored) {
        key();
    }

    /** @return true when dev sign-in is enabled and its key is the one the server trusts */
    public boolean enabled() {
        return key().isPresent();
    }

    private synchronized Optional<PrivateKey> key() {
        if (!decided) {
            decided = true;
            signingKey = decide();
        }
        return Optional.ofNullable(signingKey);
    }

    private PrivateKey decide() {
        if (!requested) {
            return null;
        }
        try {
            if (privateKeyFile.isEmpty() || privateKeyFile.get().isBlank()) {
                LOG.warning("Dev sign-in stays OFF: teamdesk.dev-login.enabled=true but teamdesk.dev-login.private-key is not set.");
                return null;
            }
            RSAPrivateCrtKey priv = (RSAPrivateCrtKey) KeyFactory.getInstance("RSA").generatePrivate(
                    new PKCS8EncodedKeySpec(der(Files.readString(Path.of(privateKeyFile.get().trim()), StandardCharsets.US_ASCII),
                            "PRIVATE KEY")));
            String trustedPem = trustedPublicKeyPem();
            if (trustedPem == null) {
                LOG.warning("Dev sign-in stays OFF: no local MP-JWT public key to compare with (mp.jwt.verify.publickey.location"
                        + " must be a file, or mp.jwt.verify.publickey set).");
                return null;
            }
            RSAPublicKey trusted = (RSAPublicKey) KeyFactory.getInstance("RSA")
                    .generatePublic(new X509EncodedKeySpec(der(trustedPem, "PUBLIC KEY")));
            if (!trusted.getModulus().equals(priv.getModulus())
                    || !trusted.getPublicExponent().equals(priv.getPublicExponent())) {
                LOG.warning("Dev sign-in stays OFF: the MP-JWT public key the server verifies with is not the public half of"
                        + " teamdesk.dev-login.private-key (a non-development key is configured).");
                return null;
            }
            LOG.warning("Dev sign-in is ON: anyone who reaches this server can sign in as any user (development only).");
            return priv;
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            LOG.warning("Dev sign-in stays OFF: cannot read or compare the keys: " + e);
            return null;
        }
    }

    private String trustedPublicKeyPem() throws IOException {
        if (publicKeyText.isPresent() && !publicKeyText.get().isBlank()) {
            return publicKeyText.get();
        }
        if (publicKeyLocation.isEmpty() || publicKeyLocation.get().isBlank()) {
            return null;
        }
        String loc = publicKeyLocation.get().trim();
        Path file;
        if (loc.startsWith("file:")) {
            file = Path.of(URI.create(loc.startsWith("file://") ? loc : "file://" + loc.substring("file:".length())));
        } else if (!loc.contains(":")) {
            file = Path.of(loc);
        } else {
            return null; // http(s)/classpath: not a key this server holds locally
        }
        return Files.readString(file, StandardCharsets.US_ASCII);
    }

    private static byte[] der(String pem, String label) {
        if (!pem.contains("-----BEGIN " + label + "-----")) {
            throw new IllegalArgumentException("not a PEM " + label);
        }
        return Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", ""));
    }

    /**
     * @return {@code [{username, displayName, teams: "name (ROLE), …", operator}]}, by username, at most 200
     * @throws NotFoundException when dev sign-in is off (the endpoint does not exist)
     */
    public List<JsonObject> users() {
        requireEnabled();
        List<JsonObject> users = new ArrayList<>();
        for (TeamDirectory.UserSummary u : directory.usersWithTeams(200)) {
            users.add(Json.createObjectBuilder().add("username", u.username()).add("displayName", u.displayName())
                    .add("teams", u.teams()).add("operator", operators.contains(u.username())).build());
        }
        return users;
    }

    /**
     * Mints a token as {@code ./teamdesk token} does: {@code iss}, {@code sub}, {@code upn},
     * {@code groups} (member, plus operator for {@link #operators}), {@code iat}, {@code exp}, {@code jti}.
     *
     * @throws NotFoundException     when dev sign-in is off
     * @throws InvalidInputException ({@code dev_login.unknown_user}) no such user
     */
    public String token(String username) {
        PrivateKey key = requireEnabled();
        UUID id = userId(username);
        Instant now = clock.instant();
        JsonArrayBuilder groups = Json.createArrayBuilder().add(RestApplication.MEMBER);
        if (operators.contains(username)) {
            groups.add(RestApplication.OPERATOR);
        }
        JsonObject claims = Json.createObjectBuilder().add("iss", issuer).add("sub", id.toString()).add("upn", username)
                .add("preferred_username", username).add("groups", groups).add("iat", now.getEpochSecond())
                .add("exp", now.getEpochSecond() + ttlSeconds).add("jti", UUID.randomUUID().toString()).build();
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String input = b64.encodeToString("{\"alg\":\"RS256\",\"typ\":\"JWT\",\"kid\":\"teamdesk-dev\"}"
                .getBytes(StandardCharsets.UTF_8)) + "." + b64.encodeToString(claims.toString().getBytes(StandardCharsets.UTF_8));
        try {
            Signature s = Signature.getInstance("SHA256withRSA");
            s.initSign(key);
            s.update(input.getBytes(StandardCharsets.US_ASCII));
            return input + "." + b64.encodeToString(s.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("dev sign-in: signing failed", e);
        }
    }

    private UUID userId(String username) {
        return (username == null ? Optional.<UUID>empty() : directory.userId(username))
                .orElseThrow(() -> new InvalidInputException("dev_login.unknown_user", "No such user."));
    }

    /**
     * @return the signing key
     * @throws NotFoundException ({@code resource.not_found}) when dev sign-in is off
     */
    PrivateKey requireEnabled() {
        return key().orElseThrow(() -> new NotFoundException("resource.not_found", "Not Found."));
    }
}
