package com.teamdesk.tasks.task.batch;

import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskStatus;
import java.time.Instant;
import java.util.UUID;

/**
 * A batch (issue 52, R51) as read in one statement: its counts as the ledger's trigger keeps them, and the children
 * running now.
 *
 * @param size              how many children
 * @param completed         children COMPLETED now
 * @param failed            children FAILED for good now
 * @param cancelled         children CANCELLED now
 * @param completionKind    the completion's kind, or null when the batch has none
 * @param completionWhenCancelled whether the completion runs when the batch was cancelled
 * @param completionTaskId  the completion task, once created (exactly once, R52), else null
 * @param finishedAt        when every child had first ended, else null
 * @param running           children RUNNING now
 * @param completionStatus  the completion task's status, or null (none yet, or deleted by retention)
 */
public record Batch(UUID id, UUID teamId, UUID ownerId, String label, int size, int completed, int failed,
        int cancelled, OnChildFailure onChildFailure, TaskKind completionKind, boolean completionWhenCancelled,
        UUID completionTaskId, Instant finishedAt, Instant cancelledAt, UUID cancelledBy, Instant createdAt,
        Instant updatedAt, int running, TaskStatus completionStatus) {

    /** What a child's permanent failure does to its waiting siblings (R52). */
    public enum OnChildFailure {
        /** Nothing: the others run, and the completion sees the failure. */
        CONTINUE,
        /** The waiting children are cancelled (as a member's cancel, R23); running ones finish. */
        CANCEL_REST
    }

    /** A batch's state as the API shows it. */
    public enum State {
        /** Some child has not ended. */
        OPEN,
        /** Every child has ended. */
        FINISHED,
        /** A member cancelled it; its waiting children were cancelled. */
        CANCELLED
    }

    /** @return children WAITING now (neither running nor ended) */
    public int waiting() {
        return Math.max(0, size - completed - failed - cancelled - running);
    }

    /** @return CANCELLED once cancelled, else FINISHED when every child has ended, else OPEN */
    public State state() {
        if (cancelledAt != null) {
            return State.CANCELLED;
        }
        return completed + failed + cancelled == size ? State.FINISHED : State.OPEN;
    }
}
