package com.teamdesk.tasks.task.spi;

/** What part of a team a task may touch. */
public enum TaskScope {
    /** Only what the owner may see: tickets they requested or are assigned to. */
    SELF,
    /** Team-wide; only STAFF and OWNER may create such a task, and only while they stay staff. */
    TEAM
}
