package com.teamdesk.tasks.team;

/** A member's role in a team. A customer may be promoted to staff and back. */
public enum Role {
    OWNER, STAFF, CUSTOMER;

    /** @return true for OWNER and STAFF, who may act team-wide (TEAM scope, events, R15). */
    public boolean isStaff() {
        return this != CUSTOMER;
    }
}
