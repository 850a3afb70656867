package com.teamdesk.tasks.task.spi;

/**
 * A field of the create body ({@code POST /teams/{teamId}/tasks}) that a task kind reads: its name, its JSON
 * type and, for the API's contract (issue 50), whether the kind requires it and its JSON Schema. The API refuses a
 * body with a field no kind declares, and a declared field of the wrong type, before anything else is checked
 * (400). Fields are the same field across kinds when their names are equal.
 *
 * @param name     the JSON key
 * @param object   true: a JSON object (wrong type: {@code <name>.invalid}); false: a string (wrong type:
 *                 {@code request.malformed})
 * @param required true when the kind refuses a body without it
 * @param schema   its JSON Schema as OpenAPI 3.0 reads it (a JSON object's text: {@code type}, {@code format},
 *                 {@code enum}, {@code description}, {@code default}, {@code minLength}, {@code maxLength},
 *                 {@code properties}, {@code items}), or null for a plain string or object
 */
public record RequestField(String name, boolean object, boolean required, String schema) {

    /** @return an optional string field */
    public static RequestField text(String name) {
        return new RequestField(name, false, false, null);
    }

    /** @return an optional JSON-object field */
    public static RequestField object(String name) {
        return new RequestField(name, true, false, null);
    }

    /** @return this field, required */
    public RequestField asRequired() {
        return new RequestField(name, object, true, schema);
    }

    /** @return this field with its JSON Schema (see {@link #schema()}) */
    public RequestField withSchema(String jsonSchema) {
        return new RequestField(name, object, required, jsonSchema);
    }
}
