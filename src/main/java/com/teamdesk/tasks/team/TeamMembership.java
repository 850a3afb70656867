package com.teamdesk.tasks.team;

import java.util.UUID;

/**
 * One team of a member, as listed by {@code GET /me}.
 *
 * @param role the member's current role in the team
 */
public record TeamMembership(UUID teamId, String teamName, Role role) {
}
