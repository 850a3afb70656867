package com.teamdesk.tasks.task.spi;

/** The rejection reasons of the engine and of every kind alike (R11); a kind's own are in its package. */
public enum CoreRejection implements RejectionReason {
    /** The owner is no longer a member, or no longer staff for a TEAM-scope task (R15). */
    PERMISSION_LOST("Rejected: you no longer have permission for this task's scope."),
    /** The task's kind is not registered on this server (issue 29: removed, or not yet deployed here). */
    UNKNOWN_KIND("Rejected: this server does not run tasks of this kind.");

    private final String message;

    CoreRejection(String message) {
        this.message = message;
    }

    @Override
    public String message() {
        return message;
    }
}
