package bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * A client of the TeamDesk API on 127.0.0.1 for the server figures, with development JWTs minted the way
 * {@code ./teamdesk token} mints them (RS256, dev/jwt/private.pem, issuer https://teamdesk.dev/dev).
 */
final class Api {

    static final String ISSUER = "https://teamdesk.dev/dev";
    static final UUID OWNER = UUID.fromString("b0000000-0000-4000-8000-000000000001");
    static final UUID IDLE = UUID.fromString("b0000000-0000-4000-8000-000000000002");
    static final UUID TEAM_IDLE = UUID.fromString("7b000000-0000-4000-8000-000000000000");

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    Api(String base) {
        if (!URI.create(base).getHost().equals("127.0.0.1")) {
            throw new IllegalArgumentException("benchmarks talk to 127.0.0.1 only: " + base);
        }
        this.base = base;
    }

    static String token(Path privateKeyPem, UUID sub, String username) throws Exception {
        String pem = Files.readString(privateKeyPem).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        PrivateKey key = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
        long now = System.currentTimeMillis() / 1000;
        String header = "{\"alg\":\"RS256\",\"typ\":\"JWT\",\"kid\":\"teamdesk-dev\"}";
        String payload = String.format("{\"iss\":\"%s\",\"sub\":\"%s\",\"upn\":\"%s\",\"preferred_username\":\"%s\","
                + "\"groups\":[\"member\"],\"iat\":%d,\"exp\":%d,\"jti\":\"%s\"}", ISSUER, sub, username, username, now,
                now + 4 * 3600, UUID.randomUUID());
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String input = b64.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(payload.getBytes(StandardCharsets.UTF_8));
        Signature sig = Signature.getInstance("SHA256withRSA");
        sig.initSign(key);
        sig.update(input.getBytes(StandardCharsets.US_ASCII));
        return input + "." + b64.encodeToString(sig.sign());
    }

    /** POST /api/v1/teams/{team}/tasks; the future completes with the response (202 expected). */
    CompletableFuture<HttpResponse<String>> createAsync(String token, UUID team, String body) {
        return http.sendAsync(post(token, team, body), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> create(String token, UUID team, String body) throws IOException, InterruptedException {
        return http.send(post(token, team, body), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest post(String token, UUID team, String body) {
        return HttpRequest.newBuilder(URI.create(base + "/api/v1/teams/" + team + "/tasks"))
                .timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    JsonObject task(String token, UUID id) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/tasks/" + id))
                .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + token).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET task " + id + ": " + r.statusCode() + " " + r.body());
        }
        return JsonParser.parseString(r.body()).getAsJsonObject();
    }

    /** @return the size in bytes of the task's CSV (GET .../result, streamed to nowhere) */
    long resultSize(String token, UUID id) throws IOException, InterruptedException {
        HttpResponse<java.io.InputStream> r = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/tasks/" + id
                + "/result")).timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + token).GET().build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (var in = r.body()) {
            if (r.statusCode() != 200) {
                throw new IllegalStateException("GET result " + id + ": " + r.statusCode());
            }
            return in.transferTo(java.io.OutputStream.nullOutputStream());
        }
    }

    /** The same POST as {@link #create} over {@code http} (the calling thread's own connection); @return the task's id */
    UUID create(PlainHttp http, String token, UUID team, String body) throws IOException {
        PlainHttp.Response r = http.postJson("/api/v1/teams/" + team + "/tasks", token, body);
        return idOf(r.status(), r.body());
    }

    /**
     * POST /api/v1/tasks/{id}/cancel over {@code http} (R23).
     *
     * @return true when cancelled (200), false when the task had already finished (409 {@code task.not_cancellable})
     */
    boolean cancel(PlainHttp http, String token, UUID id) throws IOException {
        PlainHttp.Response r = http.postJson("/api/v1/tasks/" + id + "/cancel", token, "");
        if (r.status() != 200 && r.status() != 409) {
            throw new IllegalStateException("cancel " + id + ": expected 200 or 409, got " + r.status() + ": " + r.body());
        }
        return r.status() == 200;
    }

    /** @return a client of its own on this API's server, for one thread */
    PlainHttp plainClient() {
        return new PlainHttp(base);
    }

    static UUID idOf(HttpResponse<String> created) {
        return idOf(created.statusCode(), created.body());
    }

    static UUID idOf(int status, String body) {
        if (status != 202) {
            throw new IllegalStateException("expected 202, got " + status + ": " + body);
        }
        return UUID.fromString(JsonParser.parseString(body).getAsJsonObject().get("id").getAsString());
    }
}
