package com.teamdesk.tasks.queue;

/**
 * Thrown by a {@link JobProcessor} to fail the job at once without retry, whatever attempts remain (the
 * counterpart of BullMQ's {@code UnrecoverableError}). The job becomes FAILED with {@code exhausted = true}.
 */
public class UnrecoverableJobException extends RuntimeException {

    /**
     * @param message the reason, stored as the job's failed reason
     */
    public UnrecoverableJobException(String message) {
        super(message);
    }

    /**
     * @param message the reason, stored as the job's failed reason
     * @param cause   the underlying error (logged, never stored in Redis)
     */
    public UnrecoverableJobException(String message, Throwable cause) {
        super(message, cause);
    }
}
