package com.teamdesk.tasks.it.support;

import com.teamdesk.tasks.task.spi.NewTaskRequest;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;

/** Create requests as the API would pass them to {@code TaskService.create}; null fields are left out. */
public final class TaskRequests {
    private TaskRequests() {
    }

    /** An EXPORT request: {@code {kind, scope?, filters?, timeZone?}}. */
    public static NewTaskRequest export(String scope, JsonObject filters, String timeZone) {
        JsonObjectBuilder b = Json.createObjectBuilder().add("kind", "EXPORT");
        add(b, "scope", scope);
        if (filters != null) {
            b.add("filters", filters);
        }
        add(b, "timeZone", timeZone);
        return new NewTaskRequest(b.build());
    }

    /** A REMINDER request to run now: {@code {kind, ticketId, message, recipients?}}. */
    public static NewTaskRequest reminder(String ticketId, String message, String recipients) {
        return reminder(ticketId, message, recipients, null);
    }

    /** A REMINDER request: {@code {kind, ticketId, message, recipients?, runAt?}}. */
    public static NewTaskRequest reminder(String ticketId, String message, String recipients, String runAt) {
        JsonObjectBuilder b = Json.createObjectBuilder().add("kind", "REMINDER");
        add(b, "ticketId", ticketId);
        add(b, "message", message);
        add(b, "recipients", recipients);
        add(b, "runAt", runAt);
        return new NewTaskRequest(b.build());
    }

    private static void add(JsonObjectBuilder b, String key, String value) {
        if (value != null) {
            b.add(key, value);
        }
    }
}
