package com.teamdesk.tasks.task;

/** What a background task does. */
public enum TaskKind {
    /** CSV export of a team's tickets (R13). */
    EXPORT,
    /** Reminder about a ticket to its assignee or the team's staff (R14). */
    REMINDER
}
