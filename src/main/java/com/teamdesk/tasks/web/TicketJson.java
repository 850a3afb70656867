package com.teamdesk.tasks.web;

import com.teamdesk.tasks.team.Priority;
import com.teamdesk.tasks.team.Ticket;
import com.teamdesk.tasks.team.TicketRow;
import com.teamdesk.tasks.team.TicketStatus;
import jakarta.json.bind.annotation.JsonbNillable;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import java.time.Instant;
import java.util.UUID;

/**
 * A ticket as the API shows it. {@code version} is what a PATCH sends back in {@code If-Match}.
 *
 * @param assigneeId null (sent as JSON null) when unassigned
 */
@JsonbNillable
@JsonbPropertyOrder({"id", "teamId", "title", "body", "status", "priority", "assigneeId", "requesterId", "version",
        "createdAt", "updatedAt"})
@org.eclipse.microprofile.openapi.annotations.media.Schema(name = "Ticket")
public record TicketJson(UUID id, UUID teamId, String title, String body, TicketStatus status, Priority priority,
        UUID assigneeId, UUID requesterId, int version, Instant createdAt, Instant updatedAt) {

    /** @return the JSON form of an entity */
    public static TicketJson of(Ticket t) {
        return new TicketJson(t.getId(), t.getTeamId(), t.getTitle(), t.getBody(), t.getStatus(), t.getPriority(),
                t.getAssigneeId(), t.getRequesterId(), t.getVersion(), t.getCreatedAt(), t.getUpdatedAt());
    }

    /** @return the JSON form of a listed row */
    public static TicketJson of(TicketRow t) {
        return new TicketJson(t.id(), t.teamId(), t.title(), t.body(), t.status(), t.priority(), t.assigneeId(),
                t.requesterId(), t.version(), t.createdAt(), t.updatedAt());
    }
}
