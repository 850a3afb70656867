package com.teamdesk.tasks.task.spi;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.Jsons;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.Arrays;
import java.util.Collection;

/**
 * A member's request for a task, as the API received it: the JSON body, whose fields other than
 * {@code kind} and {@code runAt} belong to the kind and are read by its {@link TaskKindHandler}.
 *
 * @param body the create body (a JSON object)
 */
public record NewTaskRequest(JsonObject body) {
    /** The kind's name, e.g. "EXPORT" (case-insensitive); required. */
    public static final RequestField KIND = RequestField.text("kind");
    /** Not before this instant (R24): ISO-8601 with an offset; absent = now. */
    public static final RequestField RUN_AT = RequestField.text("runAt");

    /**
     * Checks the JSON type of every declared field present in {@code body}, in the given order.
     *
     * @throws InvalidInputException {@code request.malformed} for a text field that is not a
     *                               string, {@code <name>.invalid} for an object field that is not
     *                               an object
     */
    public static NewTaskRequest of(JsonObject body, Collection<RequestField> fields) {
        NewTaskRequest req = new NewTaskRequest(body);
        for (RequestField f : fields) {
            if (f.object()) {
                req.object(f.name());
            } else {
                req.text(f.name());
            }
        }
        return req;
    }

    /** @return the {@code kind} field, or null */
    public String kind() {
        return text(KIND.name());
    }

    /** @return the {@code runAt} field, or null */
    public String runAt() {
        return text(RUN_AT.name());
    }

    /**
     * @return the string value of {@code key}, or null when absent or JSON null
     * @throws InvalidInputException ({@code request.malformed}) present with another JSON type
     */
    public String text(String key) {
        return Jsons.string(body, key);
    }

    /**
     * @return the object value of {@code key}, or null when absent or JSON null
     * @throws InvalidInputException ({@code <key>.invalid}) present with another JSON type
     */
    public JsonObject object(String key) {
        JsonValue v = body.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (v instanceof JsonObject o) {
            return o;
        }
        throw new InvalidInputException(key + ".invalid", key + " must be a JSON object.");
    }

    /** How far ahead a task may be scheduled (R24). */
    public static final java.time.Duration MAX_SCHEDULE_AHEAD = java.time.Duration.ofDays(366);

    /**
     * R24: parses and checks {@code runAt}: ISO-8601 with an offset, not before now minus {@code skewS} seconds, at
     * most 366 days ahead.
     *
     * @return the instant (microsecond precision), or {@code now} when absent
     * @throws InvalidInputException ({@code task.run_at_invalid})
     */
    public static java.time.Instant runAt(String text, java.time.Instant now, long skewS) {
        if (text == null) {
            return now;
        }
        java.time.Instant at;
        try {
            at = java.time.OffsetDateTime.parse(text, java.time.format.DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant()
                    .truncatedTo(java.time.temporal.ChronoUnit.MICROS);
        } catch (java.time.format.DateTimeParseException e) {
            throw new InvalidInputException("task.run_at_invalid",
                    "runAt must be an ISO-8601 date-time with an offset, e.g. 2030-01-02T09:00:00+08:00.");
        }
        if (at.isBefore(now.minusSeconds(skewS))) {
            throw new InvalidInputException("task.run_at_invalid", "runAt is in the past.");
        }
        if (at.isAfter(now.plus(MAX_SCHEDULE_AHEAD))) {
            throw new InvalidInputException("task.run_at_invalid", "runAt may be at most one year ahead.");
        }
        return at;
    }

    /**
     * Parses one of an enum's names (case-insensitive, trimmed), as the task API takes them.
     *
     * @param field the field's name, for the detail
     * @param dflt  the value when absent or blank; null = the field is required
     * @throws InvalidInputException ({@code task.invalid}) missing when required, or not a name of {@code type}
     */
    public static <E extends Enum<E>> E enumValue(Class<E> type, String value, String field, E dflt) {
        if (value == null || value.isBlank()) {
            if (dflt != null) {
                return dflt;
            }
            throw new InvalidInputException("task.invalid", field + " is required.");
        }
        E v = com.teamdesk.tasks.common.ClientValues.enumOf(type, value);
        if (v == null) {
            throw new InvalidInputException("task.invalid", field + " '" + com.teamdesk.tasks.common.ClientText.echo(value)
                    + "' is not one of " + Arrays.toString(type.getEnumConstants()) + ".");
        }
        return v;
    }
}
