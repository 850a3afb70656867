package com.teamdesk.tasks.team;

import jakarta.persistence.Column;
import jakarta.persistence.Convert;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;

/**
 * A ticket of a team. {@code version} is an integer bumped by every change (an API PATCH with
 * {@code If-Match}, a reminder in R14); it is compared explicitly, not through JPA's
 * {@code @Version}, because reminders bump it with a native UPDATE inside their transaction.
 */
@Entity
@Table(name = "ticket")
public class Ticket {
    @Id
    private UUID id;
    @Column(name = "team_id", nullable = false)
    private UUID teamId;
    @Column(nullable = false)
    private String title;
    @Column(nullable = false)
    private String body;
    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    private TicketStatus status;
    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    private Priority priority;
    @Column(name = "assignee_id")
    @Convert(converter = NullableUuidConverter.class)
    private UUID assigneeId;
    @Column(name = "requester_id", nullable = false)
    private UUID requesterId;
    @Column(name = "created_at", nullable = false)
    private Instant createdAt;
    @Column(name = "updated_at", nullable = false)
    private Instant updatedAt;
    @Column(nullable = false)
    private int version;

    protected Ticket() {
    }

    /** Creates an OPEN ticket at version 1. */
    public Ticket(UUID id, UUID teamId, String title, String body, Priority priority, UUID assigneeId,
            UUID requesterId, Instant now) {
        this.id = id;
        this.teamId = teamId;
        this.title = title;
        this.body = body;
        this.status = TicketStatus.OPEN;
        this.priority = priority;
        this.assigneeId = assigneeId;
        this.requesterId = requesterId;
        this.createdAt = now;
        this.updatedAt = now;
        this.version = 1;
    }

    public UUID getId() { return id; }
    public UUID getTeamId() { return teamId; }
    public String getTitle() { return title; }
    public String getBody() { return body; }
    public TicketStatus getStatus() { return status; }
    public Priority getPriority() { return priority; }
    public UUID getAssigneeId() { return assigneeId; }
    public UUID getRequesterId() { return requesterId; }
    public Instant getCreatedAt() { return createdAt; }
    public Instant getUpdatedAt() { return updatedAt; }
    public int getVersion() { return version; }

    public void setTitle(String title) { this.title = title; }
    public void setBody(String body) { this.body = body; }
    public void setStatus(TicketStatus status) { this.status = status; }
    public void setPriority(Priority priority) { this.priority = priority; }
    public void setAssigneeId(UUID assigneeId) { this.assigneeId = assigneeId; }

    /** Records a change: bumps {@code version} by one and moves {@code updatedAt}. */
    public void touch(Instant now) {
        this.version++;
        this.updatedAt = now;
    }
}
