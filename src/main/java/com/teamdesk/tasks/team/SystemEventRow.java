package com.teamdesk.tasks.team;

import java.time.Instant;
import java.util.UUID;

/**
 * One entry of a team's append-only audit log.
 *
 * @param id          increasing sequence number within the database
 * @param kind        what happened, e.g. {@code reminder.sent}
 * @param ticketId    the ticket concerned, or null
 * @param actorId     the member who caused it, or null for the system
 * @param taskId      the task that wrote it, or null
 * @param payloadJson the {@code payload} jsonb column as JSON text
 */
public record SystemEventRow(long id, UUID teamId, String kind, UUID ticketId, UUID actorId, UUID taskId,
        String payloadJson, Instant createdAt) {
}
