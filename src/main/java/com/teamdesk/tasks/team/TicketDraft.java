package com.teamdesk.tasks.team;

/**
 * A member's request to open a ticket, as parsed from the API body (not yet validated).
 *
 * @param title      1-200 characters after trimming; required
 * @param body       at most 20000 characters; null = empty
 * @param priority   LOW, NORMAL (default), HIGH or URGENT, case-insensitive; staff only
 * @param assigneeId UUID text of a STAFF/OWNER member of the team, or null; staff only
 */
public record TicketDraft(String title, String body, String priority, String assigneeId) {
}
