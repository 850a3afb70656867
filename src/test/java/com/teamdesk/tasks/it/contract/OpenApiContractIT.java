package com.teamdesk.tasks.it.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.swagger.parser.OpenAPIParser;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonPointer;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The lint of the contract (issue 50): the OpenAPI document the production WAR serves (fetched by the contract
 * server in pre-integration-test) parsed by swagger-parser with no message at all, and the rules of Redocly's
 * {@code recommended} set that the issue names, checked one by one so that a failure lists every offender.
 * Why a Java parser rather than Redocly CLI: docs/decisions.md "The contract is proved by tools nobody here wrote".
 */
class OpenApiContractIT {
    /** The root properties OpenAPI 3.0 and 3.1 define (Redocly {@code struct}: anything else is an error). */
    static final Set<String> ROOT_PROPERTIES = Set.of("openapi", "info", "jsonSchemaDialect", "servers", "paths",
            "webhooks", "components", "security", "tags", "externalDocs");
    private static final Pattern URL_SAFE = Pattern.compile("[A-Za-z0-9_.~:/-]+");
    private static final Pattern TEMPLATE_PARAMETER = Pattern.compile("\\{([^}/]+)}");

    static String text;
    static JsonObject raw;

    @BeforeAll
    static void load() {
        text = ContractServer.document();
        try (JsonReader r = Json.createReader(new StringReader(text))) {
            raw = r.readObject();
        }
    }

    @Test
    void swaggerParserReadsItWithoutAnyMessage() {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIParser().readContents(text, null, options);
        assertNotNull(result.getOpenAPI(), "the parser built no model: " + result.getMessages());
        assertEquals(List.of(), result.getMessages(), "swagger-parser's messages on the served document");
    }

    @Test
    void noUnknownRootProperty() {
        List<String> unknown = raw.keySet().stream().filter(k -> !ROOT_PROPERTIES.contains(k) && !k.startsWith("x-")).toList();
        assertEquals(List.of(), unknown, "root properties OpenAPI does not define (e.g. Payara's endpoints)");
    }

    @Test
    void serversAreRelative() {
        JsonArray servers = raw.getJsonArray("servers");
        assertNotNull(servers, "no servers: clients would not know the base path");
        assertTrue(!servers.isEmpty(), "an empty servers list");
        List<String> absolute = servers.getValuesAs(JsonObject.class).stream().map(s -> s.getString("url"))
                .filter(u -> u.matches("(?i)^[a-z][a-z0-9+.-]*://.*")).toList();
        assertEquals(List.of(), absolute, "server URLs must be relative to where the document is served");
    }

    @Test
    void everyOperationHasAUniqueUrlSafeOperationId() {
        Map<String, List<String>> byId = new HashMap<>();
        List<String> problems = new ArrayList<>();
        forEachOperation((where, op) -> {
            String id = op.getString("operationId", "");
            if (id.isBlank()) {
                problems.add(where + ": no operationId");
            } else {
                byId.computeIfAbsent(id, k -> new ArrayList<>()).add(where);
                if (!URL_SAFE.matcher(id).matches()) {
                    problems.add(where + ": operationId '" + id + "' is not URL-safe");
                }
            }
        });
        byId.forEach((id, wheres) -> {
            if (wheres.size() > 1) {
                problems.add("operationId '" + id + "' is used by " + wheres);
            }
        });
        assertEquals(List.of(), problems);
    }

    @Test
    void everyOperationHasATagASuccessAndA4xxResponse() {
        List<String> problems = new ArrayList<>();
        forEachOperation((where, op) -> {
            JsonArray tags = op.getJsonArray("tags");
            if (tags == null || tags.isEmpty()) {
                problems.add(where + ": no tag");
            }
            JsonObject responses = op.getJsonObject("responses");
            Set<String> codes = responses == null ? Set.of() : responses.keySet();
            if (codes.stream().noneMatch(c -> c.matches("2(\\d\\d|XX)"))) {
                problems.add(where + ": no 2xx response, only " + codes);
            }
            if (codes.stream().noneMatch(c -> c.matches("4(\\d\\d|XX)"))) {
                problems.add(where + ": no 4xx response, only " + codes);
            }
        });
        assertEquals(List.of(), problems);
    }

    @Test
    void everyPathParameterIsDeclared() {
        List<String> problems = new ArrayList<>();
        JsonObject paths = raw.getJsonObject("paths");
        for (String path : paths.keySet()) {
            JsonObject item = paths.getJsonObject(path);
            Set<String> template = new LinkedHashSet<>();
            Matcher m = TEMPLATE_PARAMETER.matcher(path);
            while (m.find()) {
                template.add(m.group(1));
            }
            for (String method : item.keySet()) {
                if (!isMethod(method)) {
                    continue;
                }
                Set<String> declared = new LinkedHashSet<>();
                declared.addAll(pathParameters(item.getJsonArray("parameters")));
                declared.addAll(pathParameters(item.getJsonObject(method).getJsonArray("parameters")));
                if (!declared.equals(template)) {
                    problems.add(method.toUpperCase(Locale.ROOT) + " " + path + ": path parameters declared " + declared
                            + ", in the template " + template);
                }
            }
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void everyOperationIsSecuredByADefinedScheme() {
        JsonObject schemes = raw.containsKey("components") ? raw.getJsonObject("components").getJsonObject("securitySchemes") : null;
        List<String> problems = new ArrayList<>();
        JsonArray global = raw.getJsonArray("security");
        forEachOperation((where, op) -> {
            JsonArray security = op.containsKey("security") ? op.getJsonArray("security") : global;
            if (security == null) {
                problems.add(where + ": no security (neither the operation's nor the document's)");
                return;
            }
            for (JsonObject requirement : security.getValuesAs(JsonObject.class)) {
                for (String scheme : requirement.keySet()) {
                    if (schemes == null || !schemes.containsKey(scheme)) {
                        problems.add(where + ": security scheme '" + scheme + "' is not in components.securitySchemes");
                    }
                }
            }
        });
        assertEquals(List.of(), problems);
    }

    @Test
    void everyRefResolves() {
        List<String> problems = new ArrayList<>();
        collectRefs(raw, "#", problems);
        assertEquals(List.of(), problems);
    }

    @Test
    void theParsedModelAgreesWithTheRawDocument() {
        // the same document through swagger-parser's model: every operation there has an id (guards the raw walk)
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        OpenAPI model = new OpenAPIParser().readContents(text, null, options).getOpenAPI();
        assertNotNull(model);
        List<String> missing = new ArrayList<>();
        int[] operations = {0};
        model.getPaths().forEach((path, item) -> item.readOperationsMap().forEach((method, op) -> {
            operations[0]++;
            if (op.getOperationId() == null) {
                missing.add(method + " " + path);
            }
        }));
        int[] rawOperations = {0};
        forEachOperation((where, op) -> rawOperations[0]++);
        assertEquals(rawOperations[0], operations[0], "operations in the model and in the JSON");
        assertEquals(List.of(), missing);
        assertTrue(operations[0] > 0, "the document has operations");
        assertSecurityListsKnown(model);
    }

    private static void assertSecurityListsKnown(OpenAPI model) {
        List<SecurityRequirement> global = model.getSecurity();
        for (PathItem item : model.getPaths().values()) {
            for (Operation op : item.readOperations()) {
                List<SecurityRequirement> s = op.getSecurity() != null ? op.getSecurity() : global;
                assertNotNull(s, op.getOperationId() + ": no security");
            }
        }
    }

    private static void collectRefs(JsonValue value, String at, List<String> problems) {
        if (value instanceof JsonObject o) {
            for (Map.Entry<String, JsonValue> e : o.entrySet()) {
                if ("$ref".equals(e.getKey()) && e.getValue() instanceof JsonString ref) {
                    String target = ref.getString();
                    if (!target.startsWith("#/")) {
                        problems.add(at + ": $ref " + target + " points outside the document");
                    } else if (!resolves(target)) {
                        problems.add(at + ": $ref " + target + " does not resolve");
                    }
                } else {
                    collectRefs(e.getValue(), at + "/" + e.getKey(), problems);
                }
            }
        } else if (value instanceof JsonArray a) {
            for (int i = 0; i < a.size(); i++) {
                collectRefs(a.get(i), at + "/" + i, problems);
            }
        }
    }

    private static boolean resolves(String ref) {
        try {
            JsonPointer pointer = Json.createPointer(ref.substring(1));
            return pointer.containsValue((JsonStructure) raw);
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static Set<String> pathParameters(JsonArray parameters) {
        Set<String> names = new LinkedHashSet<>();
        if (parameters == null) {
            return names;
        }
        for (JsonObject p : parameters.getValuesAs(JsonObject.class)) {
            JsonObject resolved = p.containsKey("$ref") && resolves(p.getString("$ref"))
                    ? (JsonObject) Json.createPointer(p.getString("$ref").substring(1)).getValue(raw) : p;
            if ("path".equals(resolved.getString("in", ""))) {
                names.add(resolved.getString("name"));
            }
        }
        return names;
    }

    private static boolean isMethod(String key) {
        return Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace").contains(key);
    }

    private static void forEachOperation(BiConsumer<String, JsonObject> action) {
        JsonObject paths = raw.getJsonObject("paths");
        for (String path : paths.keySet()) {
            JsonObject item = paths.getJsonObject(path);
            for (String method : item.keySet()) {
                if (isMethod(method)) {
                    action.accept(method.toUpperCase(Locale.ROOT) + " " + path, item.getJsonObject(method));
                }
            }
        }
    }
}
