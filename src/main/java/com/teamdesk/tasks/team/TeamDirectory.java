package com.teamdesk.tasks.team;

import com.teamdesk.tasks.platform.Jdbc;
import com.teamdesk.tasks.platform.SchemaMigration;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * What other packages may read of teams and users themselves (issue 29: the team package owns its tables).
 * One JDBC statement each, no EntityManager, so it runs on worker threads too.
 */
@ApplicationScoped
public class TeamDirectory {
    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

    /**
     * A user as the development sign-in lists them.
     *
     * @param teams "name (ROLE), …" of their memberships, by team name; empty for none
     */
    public record UserSummary(String username, String displayName, String teams) {
    }

    /**
     * @return at most {@code limit} users by username, each with their memberships
     * @throws IllegalStateException when PostgreSQL cannot answer
     */
    public List<UserSummary> usersWithTeams(int limit) {
        try {
            return Jdbc.query(dataSource, "SELECT u.username, coalesce(u.display_name, u.username),"
                    + " coalesce(string_agg(t.name || ' (' || m.role || ')', ', ' ORDER BY t.name), '')"
                    + " FROM app_user u LEFT JOIN membership m ON m.user_id = u.id LEFT JOIN team t ON t.id = m.team_id"
                    + " GROUP BY u.id, u.username, u.display_name ORDER BY u.username LIMIT ?",
                    rs -> new UserSummary(rs.getString(1), rs.getString(2), rs.getString(3)), limit);
        } catch (SQLException e) {
            throw new IllegalStateException("listing users failed", e);
        }
    }

    /**
     * @return the id of the user named {@code username}, or empty
     * @throws IllegalStateException when PostgreSQL cannot answer
     */
    public Optional<UUID> userId(String username) {
        try {
            return Jdbc.query(dataSource, "SELECT id FROM app_user WHERE username = ?", rs -> Jdbc.uuid(rs, 1), username)
                    .stream().findFirst();
        } catch (SQLException e) {
            throw new IllegalStateException("user lookup failed", e);
        }
    }

    /**
     * @return the team's slug (e.g. {@code demo}), or empty when there is no such team
     * @throws IllegalStateException when PostgreSQL cannot answer
     */
    public Optional<String> slugOf(UUID teamId) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT slug FROM team WHERE id = ?")) {
            ps.setObject(1, teamId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("reading team " + teamId + " failed", e);
        }
    }

    /**
     * @return the slugs of those of {@code teamIds} that exist, by id, in one query
     * @throws IllegalStateException when PostgreSQL cannot answer
     */
    public java.util.Map<UUID, String> slugsOf(java.util.Collection<UUID> teamIds) {
        if (teamIds.isEmpty()) {
            return java.util.Map.of();
        }
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT id, slug FROM team WHERE id = ANY(?)")) {
            ps.setArray(1, c.createArrayOf("uuid", teamIds.toArray()));
            java.util.Map<UUID, String> out = new java.util.HashMap<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(Jdbc.uuid(rs, 1), rs.getString(2));
                }
            }
            return out;
        } catch (SQLException e) {
            throw new IllegalStateException("reading teams " + teamIds + " failed", e);
        }
    }
}
