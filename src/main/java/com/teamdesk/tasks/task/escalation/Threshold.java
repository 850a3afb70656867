package com.teamdesk.tasks.task.escalation;

/** Which instant of a ticket's SLA clock an escalation is for (R59). */
public enum Threshold {
    /** The warning: the ticket's assignee is told (its team's owners when it has none). */
    WARNING,
    /** The breach: the team's owners are told and the clock is BREACHED. */
    BREACH
}
