package com.teamdesk.tasks.team;

import com.teamdesk.tasks.common.ForbiddenException;
import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.NotFoundException;
import com.teamdesk.tasks.common.Page;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

/** Application service of a team's audit log: only STAFF and OWNER read it. */
@ApplicationScoped
@Transactional
public class SystemEventService {

    @Inject
    TeamAccess access;

    @Inject
    JdbcSystemEventReader reader;

    @Inject
    JdbcTeamWrites writes;

    /**
     * Appends an event of the engine or an operator to the log, in the caller's transaction or one of its own
     * (issue 29: the team package owns {@code system_event}).
     *
     * @param teamId the team concerned, or null for an engine-wide action (an operator's timer pause)
     * @param kind   e.g. {@code admin.timer.paused}
     */
    public void append(UUID teamId, String kind, UUID actorId, UUID taskId, jakarta.json.JsonObject payload,
            java.time.Instant at) {
        writes.appendSystemEvent(teamId, kind, null, actorId, taskId, payload, at);
    }

    /**
     * One page of the team's system events, newest first.
     *
     * @param ticketId only events of this ticket (UUID text), or null/blank for all
     * @param limit    1-500, null = 50
     * @param cursor   opaque cursor of the previous page, or null
     * @throws NotFoundException     ({@code team.not_found}) the caller is not a member
     * @throws ForbiddenException    ({@code team.staff_only}) the caller is a customer
     * @throws InvalidInputException ({@code filters.invalid}) a bad ticketId; ({@code page.limit},
     *                               {@code page.cursor})
     */
    public Page<SystemEventRow> list(UUID callerId, UUID teamId, String ticketId, Integer limit, String cursor) {
        access.requireStaff(teamId, callerId);
        int n = Page.limit(limit);
        UUID ticket = null;
        if (ticketId != null && !ticketId.isBlank()) {
            try {
                ticket = UUID.fromString(ticketId.trim());
            } catch (IllegalArgumentException e) {
                throw new InvalidInputException("filters.invalid", "ticketId must be a UUID.");
            }
        }
        return page(reader.list(teamId, ticket, decode(cursor), n + 1), n);
    }

    /**
     * One page of a task's events of the given kinds, newest first (issue 32: who retried or cancelled it,
     * and when). No access check here: the caller has checked that its caller may see the task.
     *
     * @param kinds  the event kinds to read (non-empty)
     * @param limit  1-500, null = 50
     * @param cursor opaque cursor of the previous page, or null
     * @throws InvalidInputException ({@code page.limit}, {@code page.cursor})
     */
    public Page<SystemEventRow> ofTask(UUID taskId, List<String> kinds, Integer limit, String cursor) {
        int n = Page.limit(limit);
        return page(reader.ofTask(taskId, kinds, decode(cursor), n + 1), n);
    }

    private static Page<SystemEventRow> page(List<SystemEventRow> rows, int n) {
        if (rows.size() <= n) {
            return new Page<>(rows, null);
        }
        long lastId = rows.get(n - 1).id();
        return new Page<>(List.copyOf(rows.subList(0, n)),
                Base64.getUrlEncoder().withoutPadding().encodeToString(Long.toString(lastId).getBytes(StandardCharsets.UTF_8)));
    }

    private static Long decode(String cursor) {
        if (cursor == null || cursor.isBlank()) {
            return null;
        }
        try {
            Long id = com.teamdesk.tasks.common.ClientValues.longOf(new String(Base64.getUrlDecoder().decode(cursor.trim()),
                    StandardCharsets.UTF_8));
            if (id == null) {
                throw new IllegalArgumentException("not a cursor");
            }
            return id;
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException("page.cursor", "The cursor is not valid.");
        }
    }
}
