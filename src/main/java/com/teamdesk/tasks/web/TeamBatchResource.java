package com.teamdesk.tasks.web;

import com.teamdesk.tasks.task.batch.BatchService;
import com.teamdesk.tasks.task.engine.TaskKinds;
import com.teamdesk.tasks.task.idempotency.IdempotentRequest;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.InputStream;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Batches of a team (issue 52): {@code /api/v1/teams/{teamId}/batches} (create, list). */
@ApplicationScoped
@Tag(name = "tasks")
@Path("teams/{teamId}/batches")
@RolesAllowed(RestApplication.MEMBER)
@Produces(MediaType.APPLICATION_JSON)
public class TeamBatchResource {

    @Inject
    BatchService batches;

    @Inject
    TaskKinds kinds;

    @Inject
    CurrentUser user;

    @Inject
    HttpLimits limits;

    @Inject
    ApiLinks links;

    /**
     * R51: creates up to 1 000 tasks as one batch, all or none, with an optional completion that runs once when every
     * child has ended (R52); at most once per {@code Idempotency-Key} (R25).
     *
     * @return 202 with {@code Location} of the batch and the batch
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "createTeamBatch", summary = "Create many tasks as one batch (202), all or none, with an optional completion that runs exactly once")
    @RequestBody(required = true, content = @Content(mediaType = "application/json", schema = @Schema(ref = "BatchCreate")))
    @APIResponse(responseCode = "202", description = "Accepted: the batch, its children WAITING", headers = {@Header(name = "Location", description = "The batch", schema = @Schema(type = SchemaType.STRING)), @Header(name = "Idempotent-Replayed", description = "true on a replay of an Idempotency-Key (R25)", schema = @Schema(type = SchemaType.STRING))}, content = @Content(mediaType = "application/json", schema = @Schema(ref = "Batch")))
    public Response create(@PathParam("teamId") String teamId, @Context HttpHeaders headers, InputStream body) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        JsonObject o = RequestInput.object(body, headers.getMediaType(), BatchService.FIELDS, limits);
        IdempotentRequest idem = IdempotentRequest.of(user.id(), headers.getHeaderString(IdempotentRequest.HEADER), "POST",
                "teams/" + team + "/batches", o.toString());
        BatchService.Created c = batches.create(user.id(), team, o, kinds.requestFields(), idem);
        BatchJson json = BatchJson.of(c.batch(), links);
        return TaskResource.replayed(Response.status(c.status()).entity(json).location(json.links().self()), c.replayed())
                .build();
    }

    /** One page of the team's batches the caller may see, newest first. */
    @GET
    @Operation(operationId = "listTeamBatches", summary = "List the team's batches the caller may see (keyset paging)")
    @APIResponse(responseCode = "200", description = "A page of batches, newest first", content = @Content(mediaType = "application/json", schema = @Schema(ref = "BatchPage")))
    public PageJson<BatchJson> list(@PathParam("teamId") String teamId, @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        return PageJson.of(batches.list(user.id(), team, RequestInput.limit(limit), cursor), b -> BatchJson.of(b, links));
    }
}
