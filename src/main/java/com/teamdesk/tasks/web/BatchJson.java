package com.teamdesk.tasks.web;

import com.teamdesk.tasks.task.batch.Batch;
import jakarta.json.bind.annotation.JsonbNillable;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import java.net.URI;
import java.time.Instant;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A batch as the API shows it (issue 52, docs/api.md "Batches"): its state, its children's counts per status, its
 * policy and its completion.
 *
 * @param state  OPEN while a child has not ended, FINISHED when all have, CANCELLED once a member cancelled it
 * @param counts the children per status now
 * @param completion its completion (every field null when it has none: an answer never has a null object)
 * @param finishedAt when every child had first ended, else null
 */
@JsonbNillable
@JsonbPropertyOrder({"id", "teamId", "ownerId", "label", "state", "size", "counts", "onChildFailure", "completion",
        "finishedAt", "cancelledAt", "cancelledBy", "createdAt", "updatedAt", "links"})
@Schema(name = "Batch")
public record BatchJson(UUID id, UUID teamId, UUID ownerId, String label, Batch.State state, int size, Counts counts,
        Batch.OnChildFailure onChildFailure, Completion completion, Instant finishedAt, Instant cancelledAt,
        UUID cancelledBy, Instant createdAt, Instant updatedAt, Links links) {

    /** The children per status. */
    @JsonbPropertyOrder({"waiting", "running", "completed", "failed", "cancelled"})
    @Schema(name = "BatchCounts")
    public record Counts(int waiting, int running, int completed, int failed, int cancelled) {
    }

    /**
     * The batch's completion.
     *
     * @param kind          its kind, or null when the batch has no completion
     * @param whenCancelled whether it runs when the batch was cancelled
     * @param taskId        the completion task once the last child ended (created exactly once), else null
     * @param status        that task's status, else null
     */
    @JsonbNillable
    @JsonbPropertyOrder({"kind", "whenCancelled", "taskId", "status"})
    @Schema(name = "BatchCompletion")
    public record Completion(String kind, boolean whenCancelled, UUID taskId, String status) {
    }

    /**
     * Links of a batch; absent ones are omitted.
     *
     * @param tasks      its children, paged
     * @param cancel     the cancel, while it is OPEN
     * @param completion the completion task, once created
     */
    @JsonbPropertyOrder({"self", "tasks", "cancel", "completion"})
    @Schema(name = "BatchLinks")
    public record Links(URI self, URI tasks, URI cancel, URI completion) {
    }

    /** @return the JSON form of a batch */
    public static BatchJson of(Batch b, ApiLinks links) {
        URI self = links.api("batches/" + b.id());
        Completion completion = new Completion(b.completionKind() == null ? null : b.completionKind().name(),
                b.completionWhenCancelled(), b.completionTaskId(),
                b.completionStatus() == null ? null : b.completionStatus().name());
        return new BatchJson(b.id(), b.teamId(), b.ownerId(), b.label(), b.state(), b.size(),
                new Counts(b.waiting(), b.running(), b.completed(), b.failed(), b.cancelled()), b.onChildFailure(),
                completion, b.finishedAt(), b.cancelledAt(), b.cancelledBy(), b.createdAt(), b.updatedAt(),
                new Links(self, links.api("batches/" + b.id() + "/tasks"),
                        b.state() == Batch.State.OPEN ? links.api("batches/" + b.id() + "/cancel") : null,
                        b.completionTaskId() == null ? null : links.task(b.completionTaskId())));
    }
}
