package com.teamdesk.tasks.team;

import com.teamdesk.tasks.platform.SchemaMigration;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * What other packages may read of a team itself (issue 29: the team package owns its tables). One JDBC
 * statement each, no EntityManager, so it runs on worker threads too.
 */
@ApplicationScoped
public class TeamDirectory {
    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

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
}
