package com.teamdesk.tasks.outbox;

import java.time.Instant;
import java.util.UUID;

/**
 * One claimed outbox row with what its email says (R60).
 *
 * @param toAddress     the recipient's address, as stored when the notification was written
 * @param recipientName the recipient's display name
 * @param teamName      the team's name
 * @param ticketTitle   the ticket's title, or null
 * @param kind          the kind of the task that wrote the notification, or null
 * @param message       the notification's text
 * @param attempts      sends tried before this one
 * @param createdAt     when the notification was written
 */
record Outgoing(UUID id, String toAddress, String recipientName, String teamName, String ticketTitle, String kind,
        String message, int attempts, Instant createdAt) {
}
