package com.teamdesk.tasks.team;

import com.teamdesk.tasks.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * What other packages may read of teams and users themselves (issue 29: the team package owns its tables).
 * One JDBC statement each, no EntityManager, so it runs on worker threads too. When PostgreSQL cannot answer,
 * each throws {@link com.teamdesk.tasks.platform.TableAccessException} (an {@link IllegalStateException}).
 */
@ApplicationScoped
public class TeamDirectory {
    @Inject
    Jdbc jdbc;

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
        return jdbc.query(Tables.APP_USER, "listing users", "SELECT u.username, coalesce(u.display_name, u.username),"
                    + " coalesce(string_agg(t.name || ' (' || m.role || ')', ', ' ORDER BY t.name), '')"
                    + " FROM app_user u LEFT JOIN membership m ON m.user_id = u.id LEFT JOIN team t ON t.id = m.team_id"
                    + " GROUP BY u.id, u.username, u.display_name ORDER BY u.username LIMIT ?",
                    rs -> new UserSummary(rs.getString(1), rs.getString(2), rs.getString(3)), limit);
    }

    /**
     * @return the id of the user named {@code username}, or empty
     * @throws IllegalStateException when PostgreSQL cannot answer
     */
    public Optional<UUID> userId(String username) {
        return jdbc.queryOne(Tables.APP_USER, "user lookup", "SELECT id FROM app_user WHERE username = ?",
                rs -> Jdbc.uuid(rs, 1), username);
    }

    /**
     * @return the team's slug (e.g. {@code demo}), or empty when there is no such team
     * @throws IllegalStateException when PostgreSQL cannot answer
     */
    public Optional<String> slugOf(UUID teamId) {
        return jdbc.queryOne(Tables.TEAM, "team read", "SELECT slug FROM team WHERE id = ?", rs -> rs.getString(1),
                teamId);
    }

    /**
     * @return the slugs of those of {@code teamIds} that exist, by id, in one query
     * @throws IllegalStateException when PostgreSQL cannot answer
     */
    public Map<UUID, String> slugsOf(Collection<UUID> teamIds) {
        if (teamIds.isEmpty()) {
            return Map.of();
        }
        Map<UUID, String> out = new HashMap<>();
        for (Map.Entry<UUID, String> e : jdbc.query(Tables.TEAM, "teams read", "SELECT id, slug FROM team WHERE id = ANY(?)",
                rs -> Map.entry(Jdbc.uuid(rs, 1), rs.getString(2)), Jdbc.array("uuid", teamIds.toArray()))) {
            out.put(e.getKey(), e.getValue());
        }
        return out;
    }
}
