package com.teamdesk.tasks.team;

import com.teamdesk.tasks.common.ForbiddenException;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.platform.Jdbc;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;
import java.util.UUID;

/**
 * The one place that decides who may see or do what in a team. A non-member never learns that a
 * team's resource exists (404); a member without the role or scope gets 403 (API.md). Reads the
 * current membership every time: a role change takes effect at once, also for running tasks.
 */
@ApplicationScoped
public class TeamAccess {

    @Inject
    Jdbc jdbc;

    /**
     * One JDBC statement, no EntityManager: it runs on worker and executor threads too, where
     * Payara's non-transactional EntityManager (bound to the invoking component) can be closed
     * under our feet by another thread of the same invocation.
     *
     * @return the user's current role in the team, or empty when not a member
     * @throws com.teamdesk.tasks.platform.TableAccessException (an {@link IllegalStateException}) when PostgreSQL
     *                                                           cannot answer
     */
    public Optional<Role> roleOf(UUID teamId, UUID userId) {
        if (teamId == null || userId == null) {
            return Optional.empty();
        }
        return jdbc.queryOne(Tables.MEMBERSHIP, "membership read",
                "SELECT role FROM membership WHERE team_id = ? AND user_id = ?", rs -> Role.valueOf(rs.getString(1)),
                teamId, userId);
    }

    /**
     * @return the caller's role
     * @throws NotFoundException ({@code team.not_found}) when the caller is not a member
     */
    public Role requireMember(UUID teamId, UUID userId) {
        return roleOf(teamId, userId).orElseThrow(
                () -> new NotFoundException("team.not_found", "No team " + teamId + " among your teams."));
    }

    /**
     * @return the caller's role, OWNER or STAFF
     * @throws NotFoundException when not a member; {@link ForbiddenException} ({@code team.staff_only})
     *                           when a customer
     */
    public Role requireStaff(UUID teamId, UUID userId) {
        Role r = requireMember(teamId, userId);
        if (!r.isStaff()) {
            throw new ForbiddenException("team.staff_only", "Only staff and owners of the team may do this.");
        }
        return r;
    }

    /**
     * For what only a team's owners change (its calendar, its SLA policies).
     *
     * @param code the refusal's code, e.g. {@code calendar.owner_only}
     * @param what what is refused, e.g. {@code its calendar}
     * @throws NotFoundException when not a member; {@link ForbiddenException} ({@code code}) when not an owner
     */
    public void requireOwner(UUID teamId, UUID userId, String code, String what) {
        if (requireMember(teamId, userId) != Role.OWNER) {
            throw new ForbiddenException(code, "Only the team's owners set " + what + ".");
        }
    }

    /**
     * @return true when a member with {@code role} may see the ticket: staff see all of the team,
     *         customers only tickets they requested or are assigned to
     */
    public static boolean canSee(Role role, UUID userId, UUID requesterId, UUID assigneeId) {
        return role.isStaff() || userId.equals(requesterId) || userId.equals(assigneeId);
    }
}
