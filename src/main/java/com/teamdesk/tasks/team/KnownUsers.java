package com.teamdesk.tasks.team;

import com.teamdesk.tasks.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

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

    @Inject
    Jdbc jdbc;

    private final Set<UUID> known = ConcurrentHashMap.newKeySet();

    /**
     * @return true when {@code userId} names a user
     * @throws com.teamdesk.tasks.platform.TableAccessException (an {@link IllegalStateException}) when PostgreSQL
     *                                                           cannot answer
     */
    public boolean exists(UUID userId) {
        if (userId == null) {
            return false;
        }
        if (known.contains(userId)) {
            return true;
        }
        boolean found = jdbc.queryOne(Tables.APP_USER, "user read", "SELECT 1 FROM app_user WHERE id = ?",
                rs -> Boolean.TRUE, userId).isPresent();
        if (found) {
            if (known.size() >= MAX_ENTRIES) {
                known.clear();
            }
            known.add(userId);
        }
        return found;
    }
}
