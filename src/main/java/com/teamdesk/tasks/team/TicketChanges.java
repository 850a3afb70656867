package com.teamdesk.tasks.team;

/**
 * The fields a PATCH of a ticket asks to change, as parsed from the API body (not yet
 * validated). A null field is left as it is, except the assignee: {@code assigneeIdSet} with a
 * null {@code assigneeId} unassigns the ticket.
 *
 * @param title         new title (1-200 characters) or null
 * @param body          new body (at most 20000 characters) or null
 * @param status        OPEN, PENDING or CLOSED, or null
 * @param priority      LOW, NORMAL, HIGH or URGENT, or null; staff only
 * @param assigneeIdSet true when the request names an assignee (possibly null); staff only
 * @param assigneeId    UUID text of a STAFF/OWNER member, or null to unassign
 */
public record TicketChanges(String title, String body, String status, String priority, boolean assigneeIdSet,
        String assigneeId) {
}
