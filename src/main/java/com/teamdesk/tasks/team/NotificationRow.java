package com.teamdesk.tasks.team;

import java.time.Instant;
import java.util.UUID;

/**
 * A notification to one member (unique per task and recipient, R14).
 *
 * @param taskId   the task that sent it, or null
 * @param ticketId the ticket it is about, or null
 * @param readAt   when the recipient read it, or null
 */
public record NotificationRow(UUID id, UUID teamId, UUID recipientId, UUID taskId, UUID ticketId, String message,
        Instant createdAt, Instant readAt) {
}
