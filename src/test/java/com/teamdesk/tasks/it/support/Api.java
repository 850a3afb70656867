package com.teamdesk.tasks.it.support;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonStructure;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * A small HTTP client for the API on the JDK's {@link HttpClient}: requests with an optional
 * bearer token, answers as {@link Reply} (status, headers, body; JSON via jakarta.json). Works
 * client-side and in-server.
 *
 * <p>Arquillian reports the deployment's URL with the machine's external address (Hazelcast's
 * choice, PAYARA-NOTES); {@link #at(URL)} rewrites the host to 127.0.0.1.
 */
public final class Api {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NEVER).build();
    /** The contract check; none inside a test deployment, where its package is not deployed. */
    private static final List<ResponseCheck> CHECKS = ServiceLoader.load(ResponseCheck.class, Api.class.getClassLoader())
            .stream().map(ServiceLoader.Provider::get).toList();

    private final URI root;

    private Api(URI root) {
        this.root = root;
    }

    /** @param root a server root, e.g. {@code http://127.0.0.1:8123/} */
    public static Api atRoot(URI root) {
        return new Api(root);
    }

    /** @param deploymentUrl the {@code @ArquillianResource URL} of the deployment (context root {@code /}) */
    public static Api at(URL deploymentUrl) {
        try {
            URI u = deploymentUrl.toURI();
            return new Api(new URI(u.getScheme(), null, "127.0.0.1", u.getPort(), "/", null, null));
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(deploymentUrl.toString(), e);
        }
    }

    /** @return the server's root URI, e.g. {@code http://127.0.0.1:8123/} */
    public URI root() {
        return root;
    }

    /** @return the absolute URI of an API path relative to {@code /api/v1/}, e.g. {@code "me"} */
    public URI uri(String apiPath) {
        return root.resolve("api/v1/" + apiPath);
    }

    /** GET of an API path. */
    public Reply get(String apiPath, String token) {
        return send("GET", uri(apiPath), token, null, null);
    }

    /** POST of a JSON body (null = empty) to an API path. */
    public Reply post(String apiPath, String token, String json) {
        return send("POST", uri(apiPath), token, json, null);
    }

    /** PATCH of a JSON body with an {@code If-Match} header (null = none). */
    public Reply patch(String apiPath, String token, String ifMatch, String json) {
        return send("PATCH", uri(apiPath), token, json, ifMatch == null ? null : List.of("If-Match", ifMatch));
    }

    /** GET of a path from the server root, e.g. {@code "health"} or {@code "openapi"}. */
    public Reply getRoot(String path) {
        return send("GET", root.resolve(path), null, null, null);
    }

    /**
     * Sends any request.
     *
     * @param json    body sent as {@code application/json} (null = no body), or as the {@code Content-Type} that
     *                {@code headers} name
     * @param headers extra header name/value pairs, or null
     */
    public Reply send(String method, URI uri, String token, String json, List<String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(TIMEOUT)
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
        boolean typed = headers != null && java.util.stream.IntStream.range(0, headers.size() / 2)
                .anyMatch(i -> headers.get(2 * i).equalsIgnoreCase("Content-Type"));
        if (json != null && !typed) {
            b.header("Content-Type", "application/json");
        }
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (headers != null) {
            for (int i = 0; i + 1 < headers.size(); i += 2) {
                b.header(headers.get(i), headers.get(i + 1));
            }
        }
        try {
            HttpResponse<byte[]> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            for (ResponseCheck check : CHECKS) {
                check.check(root, method, uri, r);
            }
            return new Reply(method + " " + uri.getPath(), r);
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + uri, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + method + " " + uri, e);
        }
    }

    /**
     * Polls {@code GET tasks/{taskId}} (each answer must be 200) every 100 ms (a bounded poll interval, not used
     * for ordering) until the task's status is {@code status}.
     *
     * @return the task as last read
     * @throws AssertionError when the task became FAILED while another status was awaited, or did not reach
     *                        {@code status} within {@code timeout}
     */
    public JsonObject awaitStatus(String taskId, String token, String status, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonObject last = null;
        while (System.nanoTime() < deadline) {
            Reply r = get("tasks/" + taskId, token);
            if (r.status() != 200) {
                throw new AssertionError("GET tasks/" + taskId + ": " + r);
            }
            last = r.json();
            if (status.equals(last.getString("status"))) {
                return last;
            }
            if ("FAILED".equals(last.getString("status")) && !"FAILED".equals(status)) {
                throw new AssertionError("task failed: " + last);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        throw new AssertionError("task " + taskId + " never became " + status + " within " + timeout + "; last: " + last);
    }

    /** An HTTP answer. */
    public static final class Reply {
        private final String request;
        private final HttpResponse<byte[]> response;

        Reply(String request, HttpResponse<byte[]> response) {
            this.request = request;
            this.response = response;
        }

        /** @return the HTTP status */
        public int status() {
            return response.statusCode();
        }

        /** @return the first value of a header, or null */
        public String header(String name) {
            return response.headers().firstValue(name).orElse(null);
        }

        /** @return the body bytes */
        public byte[] bytes() {
            return response.body();
        }

        /** @return the body as UTF-8 text */
        public String body() {
            return new String(response.body(), StandardCharsets.UTF_8);
        }

        /** @return the body as a JSON object */
        public JsonObject json() {
            JsonStructure s = structure();
            if (!(s instanceof JsonObject o)) {
                throw new AssertionError(this + ": the body is not a JSON object");
            }
            return o;
        }

        /** @return the problem's {@code code} when the body is problem+json, else empty */
        public Optional<String> problemCode() {
            String type = header("Content-Type");
            if (type == null || !type.startsWith("application/problem+json")) {
                return Optional.empty();
            }
            return Optional.ofNullable(json().getString("code", null));
        }

        private JsonStructure structure() {
            try (JsonReader r = Json.createReader(new StringReader(body()))) {
                return r.read();
            } catch (RuntimeException e) {
                throw new AssertionError(this + ": the body is not JSON", e);
            }
        }

        /** @return the request and the answer, for assertion messages */
        @Override
        public String toString() {
            String b = body();
            return request + " -> " + status() + " " + (b.length() > 400 ? b.substring(0, 400) + "..." : b);
        }
    }
}
