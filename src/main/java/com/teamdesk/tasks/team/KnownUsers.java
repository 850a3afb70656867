package com.teamdesk.tasks.team;

import com.teamdesk.tasks.platform.SchemaMigration;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * Whether a user id names a user ({@code app_user}), for the check of a token's {@code sub} on every
 * request (issue 16). A user once seen is remembered: the application never deletes users (they are
 * referenced by memberships, tickets, tasks and events), so a positive answer cannot go stale. An
 * unknown id is never remembered and is asked again each time. At most {@value #MAX_ENTRIES} ids are
 * kept; when full, the set is emptied and refills from live traffic. One JDBC statement on a miss, no
 * EntityManager. Thread-safe.
 */
@ApplicationScoped
public class KnownUsers {
    /** Most user ids remembered at once. */
    static final int MAX_ENTRIES = 100_000;

    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

    private final Set<UUID> known = ConcurrentHashMap.newKeySet();

    /**
     * @return true when {@code userId} names a user
     * @throws IllegalStateException when PostgreSQL cannot answer
     */
    public boolean exists(UUID userId) {
        if (userId == null) {
            return false;
        }
        if (known.contains(userId)) {
            return true;
        }
        boolean found;
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT 1 FROM app_user WHERE id = ?")) {
            ps.setObject(1, userId);
            try (ResultSet rs = ps.executeQuery()) {
                found = rs.next();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("user read failed: " + e.getMessage(), e);
        }
        if (found) {
            if (known.size() >= MAX_ENTRIES) {
                known.clear();
            }
            known.add(userId);
        }
        return found;
    }
}
