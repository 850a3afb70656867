package com.teamdesk.tasks.web;

import com.teamdesk.tasks.task.batch.BatchService;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** One batch (issue 52): {@code /api/v1/batches/{batchId}} (read, its children, cancel). 404 unless the caller may see it. */
@ApplicationScoped
@Tag(name = "tasks")
@Path("batches/{batchId}")
@RolesAllowed(RestApplication.MEMBER)
@Produces(MediaType.APPLICATION_JSON)
public class BatchResource {

    @Inject
    BatchService batches;

    @Inject
    CurrentUser user;

    @Inject
    ApiLinks links;

    /** @return the batch with its counts per status and its completion */
    @GET
    @Operation(operationId = "getBatch", summary = "Get a batch: its counts per status and its completion")
    @APIResponse(responseCode = "200", description = "The batch", content = @Content(mediaType = "application/json", schema = @Schema(ref = "Batch")))
    public BatchJson get(@PathParam("batchId") String batchId) {
        return BatchJson.of(batches.get(user.id(), id(batchId)), links);
    }

    /** One page of the batch's children, newest first. */
    @GET
    @Path("tasks")
    @Operation(operationId = "listBatchTasks", summary = "List a batch's tasks (keyset paging)")
    @APIResponse(responseCode = "200", description = "A page of the batch's tasks", content = @Content(mediaType = "application/json", schema = @Schema(ref = "TaskPage")))
    public PageJson<TaskJson> tasks(@PathParam("batchId") String batchId, @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor) {
        return PageJson.of(batches.children(user.id(), id(batchId), RequestInput.limit(limit), cursor),
                t -> TaskJson.of(t, links));
    }

    /**
     * R52: cancels the batch's waiting children (running ones finish); the completion then runs only if the batch
     * says {@code completionWhenCancelled}. A cancelled batch answers as it is; a finished one 409
     * {@code batch.finished}.
     */
    @POST
    @Path("cancel")
    @Operation(operationId = "cancelBatch", summary = "Cancel a batch's waiting tasks (200; 409 batch.finished when every task has ended)")
    @APIResponse(responseCode = "200", description = "The batch, CANCELLED", content = @Content(mediaType = "application/json", schema = @Schema(ref = "Batch")))
    public BatchJson cancel(@PathParam("batchId") String batchId) {
        return BatchJson.of(batches.cancel(user.id(), id(batchId)), links);
    }

    private static UUID id(String text) {
        return RequestInput.pathId(text, "batch.not_found");
    }
}
