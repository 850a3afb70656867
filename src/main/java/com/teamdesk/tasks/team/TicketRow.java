package com.teamdesk.tasks.team;

import java.time.Instant;
import java.util.UUID;

/**
 * A ticket as read for lists and exports, with the usernames of assignee and requester.
 *
 * @param assigneeUsername null when unassigned
 * @param version          integer bumped by every change
 */
public record TicketRow(UUID id, UUID teamId, String title, String body, TicketStatus status, Priority priority,
        UUID assigneeId, String assigneeUsername, UUID requesterId, String requesterUsername, Instant createdAt,
        Instant updatedAt, int version) {
}
