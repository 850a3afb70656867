package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.ClientText;
import com.teamdesk.tasks.common.ClientValues;
import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.NotFoundException;
import jakarta.json.JsonArray;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.stream.JsonParser;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.NoSuchElementException;
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
     * Reads and parses a body that must be one JSON object with only {@code allowed} keys, strictly:
     * at most {@link HttpLimits#maxBodyBytes()} bytes (read no further), UTF-8 without a single
     * malformed sequence (overlong forms, encoded surrogates, truncation), nesting at most
     * {@link HttpLimits#maxJsonDepth()} deep, and nothing but whitespace after the value.
     *
     * @param body   the raw body stream
     * @param type   the request's media type (its {@code charset}, if any, must be UTF-8), or null
     * @throws HttpProblem           413 over the size limit; 415 a charset other than UTF-8
     * @throws InvalidInputException ({@code request.malformed}) empty, not UTF-8, not JSON, too
     *                               deep, trailing content, not an object, or an unknown key
     */
    static JsonObject object(InputStream body, MediaType type, Set<String> allowed, HttpLimits limits) {
        JsonObject o = anyObject(body, type, limits);
        for (String key : o.keySet()) {
            if (!allowed.contains(key)) {
                throw malformed("Unknown field '" + ClientText.echo(key) + "'; allowed: " + String.join(", ", allowed.stream().sorted().toList()) + ".");
            }
        }
        return o;
    }

    /**
     * Like {@link #object} but with any keys: for a body whose fields its service checks itself, nested ones
     * included, in its own codes (a schedule's, issue 31).
     */
    static JsonObject anyObject(InputStream body, MediaType type, HttpLimits limits) {
        requireUtf8(type);
        String text = utf8(read(body, limits.maxBodyBytes()));
        if (text.isBlank()) {
            throw malformed("A JSON object body is required.");
        }
        requireOneValue(text, limits.maxJsonDepth());
        JsonValue v;
        try (JsonReader r = Jsons.PROVIDER.createReader(new StringReader(text))) {
            v = r.readValue();
        } catch (JsonException e) {
            throw malformed("The body is not valid JSON.");
        }
        if (!(v instanceof JsonObject o)) {
            throw malformed("The body must be a JSON object.");
        }
        requireStorableText(o);
        return o;
    }

    /**
     * @return the string value of {@code key}, or null when absent or JSON null
     * @throws InvalidInputException ({@code request.malformed}) present with another JSON type
     */
    static String string(JsonObject o, String key) {
        return Jsons.string(o, key);
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
            throw new NotFoundException(code, "No such resource: '" + ClientText.echo(text) + "' is not an id.");
        }
    }

    /**
     * @return the {@code limit} query parameter as a number, null when absent; the range is the
     *         services' concern ({@code Page.limit})
     * @throws InvalidInputException ({@code page.limit}) not an integer of ASCII digits in the {@code int} range
     */
    static Integer limit(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        Integer n = ClientValues.intOf(text);
        if (n == null) {
            throw new InvalidInputException("page.limit", "limit must be an integer between 1 and 500.");
        }
        return n;
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

    /** @throws HttpProblem 415 when {@code type} names a charset other than UTF-8 (JSON is UTF-8, RFC 8259) */
    static void requireUtf8(MediaType type) {
        String charset = type == null ? null : type.getParameters().get(MediaType.CHARSET_PARAMETER);
        if (charset != null && !charset.strip().equalsIgnoreCase("utf-8") && !charset.strip().equalsIgnoreCase("utf8")) {
            throw HttpProblem.unsupportedMediaType("JSON bodies must be UTF-8; charset '" + ClientText.echo(charset)
                    + "' is not accepted.");
        }
    }

    /**
     * @return the body's bytes, read up to {@code max + 1} bytes and no further
     * @throws HttpProblem 413 when the body has more than {@code max} bytes
     */
    static byte[] read(InputStream in, long max) {
        if (in == null) {
            return new byte[0];
        }
        try {
            byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, max + 1));
            if (bytes.length > max) {
                throw HttpProblem.tooLarge(max);
            }
            return bytes;
        } catch (IOException e) {
            throw malformed("The request body could not be read.");
        }
    }

    /** @throws InvalidInputException ({@code request.malformed}) when the bytes are not well-formed UTF-8 */
    static String utf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw malformed("The body is not valid UTF-8.");
        }
    }

    /**
     * Walks the JSON text with the streaming parser: exactly one value, nested at most
     * {@code maxDepth} deep, then the end of input.
     *
     * @throws InvalidInputException ({@code request.malformed}) otherwise
     */
    static void requireOneValue(String text, int maxDepth) {
        try (JsonParser p = Jsons.PROVIDER.createParser(new StringReader(text))) {
            int depth = 0;
            do {
                if (!p.hasNext()) {
                    throw malformed("The body is not valid JSON.");
                }
                JsonParser.Event e = p.next();
                if (e == JsonParser.Event.START_OBJECT || e == JsonParser.Event.START_ARRAY) {
                    if (++depth > maxDepth) {
                        throw malformed("The body is nested deeper than " + maxDepth + " levels.");
                    }
                } else if (e == JsonParser.Event.END_OBJECT || e == JsonParser.Event.END_ARRAY) {
                    depth--;
                }
            } while (depth > 0);
            if (p.hasNext()) {
                throw malformed("The body has content after its JSON value.");
            }
        } catch (JsonException | NoSuchElementException | IllegalStateException e) {
            throw malformed("The body is not one valid JSON value.");
        }
    }

    /** Detail of a refused NUL or unpaired surrogate. */
    static final String UNSTORABLE = "Text may not contain NUL characters or unpaired surrogates.";

    private static InvalidInputException malformed(String detail) {
        return new InvalidInputException("request.malformed", detail);
    }
}
