package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.NotFoundException;
import jakarta.json.JsonArray;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.Set;
import java.util.UUID;

/**
 * Translation of raw request input into values the services take: JSON bodies (read here so that
 * syntax errors, wrong types and unknown fields are answered 400 {@code request.malformed} with
 * a precise detail), path ids (a malformed id is a resource that does not exist: 404) and paging
 * parameters (taken as text so that {@code limit=abc} is a 400, not JAX-RS's 404).
 */
final class RequestInput {
    private RequestInput() {
    }

    /**
     * Parses a body that must be one JSON object with only {@code allowed} keys.
     *
     * @throws InvalidInputException ({@code request.malformed}) empty, not JSON, not an object, or
     *                               an unknown key
     */
    static JsonObject object(String body, Set<String> allowed) {
        if (body == null || body.isBlank()) {
            throw malformed("A JSON object body is required.");
        }
        JsonValue v;
        try (JsonReader r = Jsons.PROVIDER.createReader(new StringReader(body))) {
            v = r.readValue();
        } catch (JsonException e) {
            throw malformed("The body is not valid JSON.");
        }
        if (!(v instanceof JsonObject o)) {
            throw malformed("The body must be a JSON object.");
        }
        requireStorableText(o);
        for (String key : o.keySet()) {
            if (!allowed.contains(key)) {
                throw malformed("Unknown field '" + key + "'; allowed: " + String.join(", ", allowed.stream().sorted().toList()) + ".");
            }
        }
        return o;
    }

    /**
     * @return the string value of {@code key}, or null when absent or JSON null
     * @throws InvalidInputException ({@code request.malformed}) present with another JSON type
     */
    static String string(JsonObject o, String key) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (v instanceof JsonString s) {
            return s.getString();
        }
        throw malformed("'" + key + "' must be a string.");
    }

    /**
     * Like {@link #string} but JSON null is refused too: for fields that cannot be cleared.
     *
     * @throws InvalidInputException ({@code request.malformed}) null or not a string
     */
    static String nonNullString(JsonObject o, String key) {
        if (o.containsKey(key) && o.isNull(key)) {
            throw malformed("'" + key + "' may not be null.");
        }
        return string(o, key);
    }

    /**
     * Parses an id from the path.
     *
     * @param code the not-found code of that resource, e.g. {@code task.not_found}
     * @throws NotFoundException ({@code code}) when it is not a UUID: no such resource can exist
     */
    static UUID pathId(String text, String code) {
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new NotFoundException(code, "No such resource: '" + text + "' is not an id.");
        }
    }

    /**
     * @return the {@code limit} query parameter as a number, null when absent; the range is the
     *         services' concern ({@code Page.limit})
     * @throws InvalidInputException ({@code page.limit}) not an integer
     */
    static Integer limit(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return Integer.valueOf(text.trim());
        } catch (NumberFormatException e) {
            throw new InvalidInputException("page.limit", "limit must be an integer between 1 and 500.");
        }
    }

    /**
     * @return true when PostgreSQL can store the text: no NUL character, no unpaired surrogate
     *         (JSON escapes such as {@code \u0000} or {@code \ud800} produce them)
     */
    static boolean storable(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == 0) {
                return false;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /** @throws InvalidInputException ({@code request.malformed}) when any key or string is not {@link #storable} */
    private static void requireStorableText(JsonValue v) {
        if (v instanceof JsonString s) {
            if (!storable(s.getString())) {
                throw malformed(UNSTORABLE);
            }
        } else if (v instanceof JsonObject o) {
            o.forEach((key, value) -> {
                if (!storable(key)) {
                    throw malformed(UNSTORABLE);
                }
                requireStorableText(value);
            });
        } else if (v instanceof JsonArray a) {
            a.forEach(RequestInput::requireStorableText);
        }
    }

    /** Detail of a refused NUL or unpaired surrogate. */
    static final String UNSTORABLE = "Text may not contain NUL characters or unpaired surrogates.";

    private static InvalidInputException malformed(String detail) {
        return new InvalidInputException("request.malformed", detail);
    }
}
