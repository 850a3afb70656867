package com.teamdesk.tasks.web;

import com.teamdesk.tasks.team.NotificationRow;
import jakarta.json.bind.annotation.JsonbNillable;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import java.time.Instant;
import java.util.UUID;

/**
 * A notification as the API shows it to its recipient.
 *
 * @param taskId   the task that sent it, or null
 * @param ticketId the ticket it is about, or null
 * @param readAt   null while unread
 */
@JsonbNillable
@JsonbPropertyOrder({"id", "teamId", "taskId", "ticketId", "message", "createdAt", "readAt"})
@org.eclipse.microprofile.openapi.annotations.media.Schema(name = "Notification")
public record NotificationJson(UUID id, UUID teamId, UUID taskId, UUID ticketId, String message, Instant createdAt,
        Instant readAt) {

    /** @return the JSON form of a row */
    public static NotificationJson of(NotificationRow n) {
        return new NotificationJson(n.id(), n.teamId(), n.taskId(), n.ticketId(), n.message(), n.createdAt(), n.readAt());
    }
}
