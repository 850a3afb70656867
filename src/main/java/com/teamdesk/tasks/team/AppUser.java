package com.teamdesk.tasks.team;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.UUID;

/** A person who can sign in; {@code id} is the JWT {@code sub}. */
@Entity
@Table(name = "app_user")
@NamedQuery(name = "AppUser.findByUsername", query = "SELECT u FROM AppUser u WHERE u.username = :username")
public class AppUser {
    @Id
    private UUID id;
    @Column(nullable = false, unique = true)
    private String username;
    @Column(name = "display_name", nullable = false)
    private String displayName;
    @Column(name = "created_at", nullable = false, insertable = false, updatable = false)
    private Instant createdAt;

    protected AppUser() {
    }

    /** Creates a user with the given id (the JWT subject), username and display name. */
    public AppUser(UUID id, String username, String displayName) {
        this.id = id;
        this.username = username;
        this.displayName = displayName;
    }

    public UUID getId() { return id; }
    public String getUsername() { return username; }
    public String getDisplayName() { return displayName; }
    public Instant getCreatedAt() { return createdAt; }
}
