package com.teamdesk.tasks.queue;

/**
 * The job's lock token in Redis is missing or belongs to another execution (R6): this execution may no
 * longer write anything to the job. Nothing was changed by the call that threw it.
 */
public class LockLostException extends RuntimeException {

    /**
     * @param message what was refused, including the job id
     */
    public LockLostException(String message) {
        super(message);
    }
}
