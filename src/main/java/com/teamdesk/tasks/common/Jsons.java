package com.teamdesk.tasks.common;

import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;

/**
 * The JSON-P provider, looked up once. {@code jakarta.json.Json.createReader()} and friends look the
 * provider up again with a {@code ServiceLoader} scan of the web application's jars on every call,
 * under the jar file's lock: on the request and execution paths that was the largest CPU cost of a
 * trivial task and a lock convoy between worker slots (bench/notes/P2.md). Thread-safe.
 */
public final class Jsons {
    /** The shared provider; use {@code Jsons.PROVIDER.createReader(…)}, {@code createObjectBuilder()}, … */
    public static final JsonProvider PROVIDER = JsonProvider.provider();

    private Jsons() {
    }

    /**
     * Reads a text field of a request body.
     *
     * @return the string value of {@code key}, or null when absent or JSON null
     * @throws InvalidInputException ({@code request.malformed}) present with another JSON type
     */
    public static String string(JsonObject o, String key) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (v instanceof JsonString s) {
            return s.getString();
        }
        throw new InvalidInputException("request.malformed", "'" + key + "' must be a string.");
    }
}
