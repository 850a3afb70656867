package com.teamdesk.tasks.task;

/**
 * A field of the create body ({@code POST /teams/{teamId}/tasks}) that a task kind reads: its name
 * and its JSON type. The API refuses a body with a field no kind declares, and a declared field of
 * the wrong type, before anything else is checked (400).
 *
 * @param name   the JSON key
 * @param object true: a JSON object (wrong type: {@code <name>.invalid}); false: a string
 *               (wrong type: {@code request.malformed})
 */
public record RequestField(String name, boolean object) {

    /** @return a string field */
    public static RequestField text(String name) {
        return new RequestField(name, false);
    }

    /** @return a JSON-object field */
    public static RequestField object(String name) {
        return new RequestField(name, true);
    }
}
