package com.teamdesk.tasks.team;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.util.Objects;
import java.util.UUID;

/** A user's role in a team: one row per (team, user); the role changes in place. */
@Entity
@Table(name = "membership")
@IdClass(Membership.Key.class)
@NamedQuery(name = "Membership.findByUser", query = "SELECT m FROM Membership m WHERE m.userId = :userId")
@NamedQuery(name = "Membership.teamsOfUser",
        query = "SELECT NEW com.teamdesk.tasks.team.TeamMembership(t.id, t.name, m.role)"
                + " FROM Membership m, Team t WHERE t.id = m.teamId AND m.userId = :userId ORDER BY t.name, t.id")
@NamedQuery(name = "Membership.findStaffOfTeam",
        query = "SELECT m FROM Membership m WHERE m.teamId = :teamId AND m.role <> com.teamdesk.tasks.team.Role.CUSTOMER ORDER BY m.userId")
public class Membership {
    @Id
    @Column(name = "team_id")
    private UUID teamId;
    @Id
    @Column(name = "user_id")
    private UUID userId;
    @Enumerated(EnumType.STRING)
    @Column(nullable = false)
    private Role role;

    protected Membership() {
    }

    /** Creates a membership of {@code userId} in {@code teamId} with {@code role}. */
    public Membership(UUID teamId, UUID userId, Role role) {
        this.teamId = teamId;
        this.userId = userId;
        this.role = role;
    }

    public UUID getTeamId() { return teamId; }
    public UUID getUserId() { return userId; }
    public Role getRole() { return role; }

    /** Promotes or demotes the member. */
    public void setRole(Role role) { this.role = role; }

    /** Composite primary key (team, user). */
    public static class Key implements Serializable {
        private static final long serialVersionUID = 1L;
        private UUID teamId;
        private UUID userId;

        public Key() {
        }

        public Key(UUID teamId, UUID userId) {
            this.teamId = teamId;
            this.userId = userId;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Objects.equals(teamId, k.teamId) && Objects.equals(userId, k.userId);
        }

        @Override
        public int hashCode() {
            return Objects.hash(teamId, userId);
        }
    }
}
