package com.teamdesk.tasks.it.contract;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.ApiOperation;
import com.atlassian.oai.validator.model.Request;
import com.atlassian.oai.validator.model.Response;
import com.atlassian.oai.validator.model.SimpleResponse;
import com.atlassian.oai.validator.report.LevelResolver;
import com.atlassian.oai.validator.report.ValidationReport;
import com.teamdesk.tasks.it.support.ResponseCheck;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Validates every answer the API ITs receive ({@link com.teamdesk.tasks.it.support.Api#send}) against the OpenAPI
 * document that the server which sent it serves (issue 50): status, {@code Content-Type} and body schema, by
 * Atlassian's swagger-request-validator. The document is fetched once per server root ({@code GET /openapi},
 * JSON) and its validator cached, one per distinct document text.
 *
 * <p>Only responses are judged: the hostile tests send bad requests on purpose, so every
 * {@code validation.request.*} message is ignored through the {@link LevelResolver} — and with them the
 * answers to paths or methods the document does not have ({@code validation.request.path.missing},
 * {@code validation.request.operation.notAllowed}: {@code /api/v1/nope}, {@code /health}).
 *
 * <p>System property {@code teamdesk.test.validateResponses}: {@code true} (default) fails the test with an
 * {@link AssertionError} carrying the validator's report; {@code report} only counts and records; {@code false}
 * checks nothing. At the end of the JVM the counts and the distinct mismatch messages are printed to standard
 * error and appended to {@code target/failsafe-reports/response-validation.txt}.
 */
public final class ResponseContract implements ResponseCheck {
    /** The switch; see the class comment. */
    public static final String MODE_PROPERTY = "teamdesk.test.validateResponses";

    /**
     * HTTP/1.1, as curl fetches it in scripts/contract-server.sh: the JDK client's default asks to upgrade to h2c,
     * and Payara Micro once answered this 75 KB document half in HTTP/1.1 after the upgrade ("protocol error: Frame
     * type(101) length(7633264)", the bytes {@code "type"} of the JSON read as a frame header).
     */
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private static final Map<URI, OpenApiInteractionValidator> VALIDATORS = new ConcurrentHashMap<>();
    private static final Map<String, OpenApiInteractionValidator> BY_DOCUMENT = new ConcurrentHashMap<>();
    private static final AtomicLong VALIDATED = new AtomicLong();
    private static final AtomicLong MISMATCHED = new AtomicLong();
    private static final AtomicLong NOT_IN_DOCUMENT = new AtomicLong();
    private static final Set<String> MESSAGES = ConcurrentHashMap.newKeySet();
    private static final Pattern UUID_TEXT = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final Path SUMMARY = Path.of("target", "failsafe-reports", "response-validation.txt");

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ResponseContract::summarize, "response-validation-summary"));
    }

    /** Used by {@link java.util.ServiceLoader}. */
    public ResponseContract() {
    }

    @Override
    public void check(URI root, String method, URI uri, HttpResponse<byte[]> response) {
        String mode = mode();
        if ("false".equals(mode)) {
            return;
        }
        try {
            assertMatches(root, method, uri.getRawPath(), response.statusCode(), response.headers().map(), response.body());
        } catch (AssertionError e) {
            if (!"report".equals(mode)) {
                throw e;
            }
        }
    }

    /**
     * Validates one answer against the document the server at {@code root} serves, counting it and its messages.
     *
     * @throws AssertionError with the validator's report when it does not match (whatever the mode)
     */
    public static void assertMatches(URI root, String method, String path, int status, Map<String, List<String>> headers,
            byte[] body) {
        ValidationReport report = validate(validatorFor(root), method, path, status, headers, body);
        VALIDATED.incrementAndGet();
        if (notInDocument(report)) {
            NOT_IN_DOCUMENT.incrementAndGet();
        }
        if (report.hasErrors()) {
            MISMATCHED.incrementAndGet();
            for (ValidationReport.Message m : report.getMessages()) {
                MESSAGES.add(m.getKey() + ": " + UUID_TEXT.matcher(m.getMessage()).replaceAll("{uuid}"));
            }
            throw mismatch(report, method, path, status, body);
        }
    }

    /**
     * Validates one answer (not counted: for the tests of the validation itself).
     *
     * @throws AssertionError with the validator's report when it does not match
     */
    public static void assertMatches(OpenApiInteractionValidator validator, String method, String path, int status,
            Map<String, List<String>> headers, byte[] body) {
        ValidationReport report = validate(validator, method, path, status, headers, body);
        if (report.hasErrors()) {
            throw mismatch(report, method, path, status, body);
        }
    }

    private static AssertionError mismatch(ValidationReport report, String method, String path, int status, byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        return new AssertionError("the answer does not match the served OpenAPI document: " + method + " " + path + " -> "
                + status + "\n" + render(report) + "\nbody: " + (text.length() > 600 ? text.substring(0, 600) + "..." : text));
    }

    /**
     * Validates one answer.
     *
     * @param validator a validator of {@link #validator(String)}
     * @param method    the request's method
     * @param path      the request's path, e.g. {@code /api/v1/tasks/…}
     * @param status    the HTTP status
     * @param headers   the answer's headers (names in any case)
     * @param body      the body bytes (empty = none)
     * @return the validator's report: errors are mismatches
     */
    public static ValidationReport validate(OpenApiInteractionValidator validator, String method, String path, int status,
            Map<String, List<String>> headers, byte[] body) {
        SimpleResponse.Builder b = SimpleResponse.Builder.status(status);
        headers.forEach((name, values) -> {
            if (name != null && !values.isEmpty()) {
                b.withHeader(name, values);
            }
        });
        if (body != null && body.length > 0) {
            b.withBody(body);
        }
        return validator.validateResponse(path, Request.Method.valueOf(method.toUpperCase(Locale.ROOT)), b.build());
    }

    /**
     * @param openApiJson the document (JSON or YAML)
     * @return a validator that judges answers only (see the class comment)
     */
    public static OpenApiInteractionValidator validator(String openApiJson) {
        return OpenApiInteractionValidator.createForInlineApiSpecification(openApiJson)
                .withLevelResolver(LevelResolver.create()
                        // requests, and with them paths and methods the document does not have, are not judged
                        .withLevel("validation.request", ValidationReport.Level.IGNORE)
                        .build())
                .withCustomResponseValidation(ResponseContract::contentTypePresent)
                .build();
    }

    /**
     * The validator checks a {@code Content-Type} only when there is one; an answer with a body whose declared
     * response has content must say what it is.
     */
    private static ValidationReport contentTypePresent(Response response, ApiOperation operation) {
        if (response.getHeaderValue("Content-Type").isPresent() || response.getResponseBody().isEmpty()) {
            return ValidationReport.empty();
        }
        ApiResponses declared = operation.getOperation().getResponses();
        String status = String.valueOf(response.getStatus());
        ApiResponse r = declared == null ? null : declared.getOrDefault(status,
                declared.getOrDefault(status.charAt(0) + "XX", declared.get("default")));
        if (r == null || r.getContent() == null || r.getContent().isEmpty()) {
            return ValidationReport.empty();
        }
        return ValidationReport.singleton(ValidationReport.Message.create("validation.response.contentType.missing",
                "Response has a body but no Content-Type header; must be one of " + r.getContent().keySet() + ".").build());
    }

    /**
     * @return whether the answer was not judged because the document has no such path or method (the ignored
     *         {@code validation.request.path.missing} / {@code operation.notAllowed} messages)
     */
    public static boolean notInDocument(ValidationReport report) {
        return report.getMessages().stream().anyMatch(m -> m.getKey().equals("validation.request.path.missing")
                || m.getKey().equals("validation.request.operation.notAllowed"));
    }

    /** @return the report's messages, one a line, for an assertion message */
    public static String render(ValidationReport report) {
        return report.getMessages().stream()
                .map(m -> "  [" + m.getLevel() + "] " + m.getKey() + ": " + m.getMessage())
                .collect(Collectors.joining("\n"));
    }

    private static String mode() {
        String mode = System.getProperty(MODE_PROPERTY, "true").strip().toLowerCase(Locale.ROOT);
        if (!Set.of("true", "false", "report").contains(mode)) {
            throw new IllegalStateException(MODE_PROPERTY + " must be true, report or false, not " + mode);
        }
        return mode;
    }

    private static OpenApiInteractionValidator validatorFor(URI root) {
        // each server's own document, parsed once per distinct text (most servers of a run serve the same one)
        return VALIDATORS.computeIfAbsent(root, r -> BY_DOCUMENT.computeIfAbsent(fetch(r.resolve("openapi")),
                ResponseContract::validator));
    }

    private static String fetch(URI openapi) {
        HttpRequest get = HttpRequest.newBuilder(openapi).timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json").GET().build();
        try {
            HttpResponse<String> r = HTTP.send(get, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            if (r.statusCode() != 200 || !r.body().startsWith("{")) {
                throw new AssertionError("GET " + openapi + " (Accept: application/json) answered " + r.statusCode()
                        + ": " + r.body().substring(0, Math.min(300, r.body().length())));
            }
            return r.body();
        } catch (IOException e) {
            throw new UncheckedIOException("GET " + openapi, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: GET " + openapi, e);
        }
    }

    private static void summarize() {
        if (VALIDATED.get() == 0 && MISMATCHED.get() == 0) {
            return;
        }
        StringBuilder s = new StringBuilder("Response validation (issue 50, " + MODE_PROPERTY + "=" + mode() + "): "
                + VALIDATED.get() + " responses validated, " + MISMATCHED.get() + " mismatches; "
                + NOT_IN_DOCUMENT.get() + " of them to a path or method the document does not have, not judged\n");
        for (String m : new TreeSet<>(MESSAGES)) {
            s.append("  ").append(m).append('\n');
        }
        System.err.print(s);
        try {
            Files.createDirectories(SUMMARY.getParent());
            Files.writeString(SUMMARY, s, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            System.err.println("cannot write " + SUMMARY + ": " + e);
        }
    }
}
