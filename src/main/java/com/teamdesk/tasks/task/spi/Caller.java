package com.teamdesk.tasks.task.spi;

import com.teamdesk.tasks.team.Role;
import java.util.UUID;

/**
 * Who asks for a task: a member of the team, with the role read when the request arrived.
 *
 * @param userId the member
 * @param teamId the team the task belongs to
 * @param role   the member's current role in that team
 */
public record Caller(UUID userId, UUID teamId, Role role) {
}
