package com.teamdesk.tasks.team;

import java.time.Instant;
import java.util.UUID;

/**
 * A notification to one member (unique per task and recipient, R14).
 *
 * @param taskId   the task that sent it, or null
 * @param ticketId the ticket it is about, or null
 * @param readAt   when the recipient read it, or null
 * @param email    its email's delivery (R60), or null (written before the outbox existed)
 */
public record NotificationRow(UUID id, UUID teamId, UUID recipientId, UUID taskId, UUID ticketId, String message,
        Instant createdAt, Instant readAt, Delivery email) {

    /**
     * Issue 54 (R60): where a notification's email is.
     *
     * @param state    PENDING, SENT, FAILED, NO_ADDRESS, OPTED_OUT or DISCARDED
     * @param attempts sends tried
     * @param lastError why the last send did not succeed, or null
     * @param sentAt   when the server took it, or null
     */
    public record Delivery(String channel, String state, int attempts, String lastError, Instant sentAt) {
    }
}
