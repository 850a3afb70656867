package com.teamdesk.tasks.team;

import java.util.List;
import java.util.UUID;

/**
 * The caller as the API's {@code GET /me} shows them.
 *
 * @param id          the user's id (the token's {@code sub})
 * @param memberships the caller's teams and roles, by team name
 */
public record MemberProfile(UUID id, String username, String displayName, List<TeamMembership> memberships) {
}
