package com.teamdesk.tasks.task.spi;

import java.util.Optional;
import java.util.UUID;

/** Issue 52 (R52): a batch's outcome for the kind that runs as its completion ({@link BatchOutcome}). */
public interface BatchOutcomes {
    /**
     * Reads, in the caller's transaction when there is one, what the batch's children came to.
     *
     * @return the outcome, or empty when there is no such batch
     */
    Optional<BatchOutcome> of(UUID batchId);
}
