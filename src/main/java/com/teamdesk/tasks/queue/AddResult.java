package com.teamdesk.tasks.queue;

/** Outcome of adding a job (R2). */
public enum AddResult {
    /** A new job record was created and is waiting or delayed. */
    ADDED,
    /**
     * A job with this id already exists in the queue, in any state including a retained completed or
     * failed record; nothing was changed.
     */
    DUPLICATE
}
