package com.teamdesk.tasks.team;

import java.util.List;

/**
 * The ticket list's query parameters, as received (not yet validated).
 *
 * @param statuses    status names; each may hold a comma-separated list; empty = all
 * @param assigneeId  UUID text or null
 * @param q           text searched in title and body, or null
 * @param createdFrom inclusive lower bound (date or ISO-8601 date-time with offset), or null
 * @param createdTo   exclusive upper bound (a date means up to the end of that day, UTC), or null
 * @param limit       page size 1-500, null = 50
 * @param cursor      opaque cursor of the previous page, or null
 */
public record TicketQuery(List<String> statuses, String assigneeId, String q, String createdFrom, String createdTo,
        Integer limit, String cursor) {
}
