package com.teamdesk.tasks.task;

import jakarta.json.JsonObject;

/**
 * A member's request for a task, as parsed from the API body (not yet validated).
 *
 * @param kind       "EXPORT" or "REMINDER" (case-insensitive); required
 * @param scope      "SELF" or "TEAM" (export; default SELF)
 * @param filters    export filters object, or null
 * @param timeZone   export time zone, IANA id or offset; null = UTC
 * @param ticketId   reminder: the ticket's id (UUID text)
 * @param message    reminder: the text sent (1-1000 characters)
 * @param recipients reminder: "ASSIGNEE" (default) or "TEAM_STAFF"
 * @param runAt      not before this instant (R24): ISO-8601 with an offset; null = now
 */
public record NewTaskRequest(String kind, String scope, JsonObject filters, String timeZone, String ticketId,
        String message, String recipients, String runAt) {

    /** A request to run now (no {@code runAt}). */
    public NewTaskRequest(String kind, String scope, JsonObject filters, String timeZone, String ticketId,
            String message, String recipients) {
        this(kind, scope, filters, timeZone, ticketId, message, recipients, null);
    }
}
