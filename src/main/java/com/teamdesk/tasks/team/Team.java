package com.teamdesk.tasks.team;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.util.UUID;

/** A team of a help desk; its row is also the team lock taken by reminders (R14). */
@Entity
@Table(name = "team")
public class Team {
    @Id
    private UUID id;
    @Column(nullable = false, unique = true)
    private String slug;
    @Column(nullable = false)
    private String name;

    protected Team() {
    }

    /** Creates a team. */
    public Team(UUID id, String slug, String name) {
        this.id = id;
        this.slug = slug;
        this.name = name;
    }

    public UUID getId() { return id; }
    public String getSlug() { return slug; }
    public String getName() { return name; }
}
