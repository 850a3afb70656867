package com.teamdesk.tasks.task.ledger;

import java.util.UUID;

/**
 * Issue 52: where a new task stands among others, as its INSERT records it.
 *
 * @param batchId   the batch it is a child of (R51), or null
 * @param waitsFor  how many of its prerequisites have not ended yet (R53); it is dispatched at 0
 * @param runAnyway runs even when a prerequisite failed or was cancelled (R53)
 */
public record Placement(UUID batchId, int waitsFor, boolean runAnyway) {
    /** A task on its own: no batch, waiting for nothing. */
    public static final Placement ALONE = new Placement(null, 0, false);
}
