package com.teamdesk.tasks.web;

import com.teamdesk.tasks.task.batch.Prerequisites;
import com.teamdesk.tasks.task.engine.TaskKinds;
import com.teamdesk.tasks.task.idempotency.IdempotentRequest;
import com.teamdesk.tasks.task.service.TaskService;
import com.teamdesk.tasks.task.spi.NewTaskRequest;
import com.teamdesk.tasks.task.spi.RequestField;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.io.InputStream;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Tasks of a team: {@code /api/v1/teams/{teamId}/tasks} (create, list, follow live). One instance for the
 * application (no per-request resource instance and injection on the API's busiest path, issue 33): the request's
 * headers come as a parameter.
 */
@ApplicationScoped
@Tag(name = "tasks")
@Path("teams/{teamId}/tasks")
@RolesAllowed(RestApplication.MEMBER)
@Produces(MediaType.APPLICATION_JSON)
public class TeamTaskResource {

    @Inject
    TaskService tasks;

    @Inject
    TaskKinds kinds;

    @Inject
    CurrentUser user;

    @Inject
    HttpLimits limits;

    @Inject
    ApiLinks links;

    @Inject
    TaskStreams streams;

    /**
     * Asks for a task of any registered kind ({@code GET /api/v1/kinds}), now or at {@code runAt} (R24), at
     * most once per {@code Idempotency-Key} (R25).
     *
     * @param body {@code {kind, runAt?, …}} with the fields of the kind ({@link TaskKinds#requestFields}):
     *             e.g. export {@code scope?, filters?, timeZone?}, reminder {@code ticketId, message, recipients?},
     *             digest {@code scope?}
     * @return 202 Accepted with {@code Location} of the task and the task (WAITING): accepted, not done;
     *         a replay of the same key and body answers the same task with the same status and Location
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "createTeamTask", summary = "Create a task of a registered kind (202 Accepted); runAt schedules it; Idempotency-Key submits it once")
    @RequestBody(required = true, content = @Content(mediaType = "application/json", schema = @Schema(ref = "TaskCreate")))
    @APIResponse(responseCode = "202", description = "Accepted: the task, WAITING (accepted, not done)", headers = {@Header(name = "Location", description = "The task", schema = @Schema(type = SchemaType.STRING)), @Header(name = "Idempotent-Replayed", description = "true on a replay of an Idempotency-Key (R25)", schema = @Schema(type = SchemaType.STRING))}, content = @Content(mediaType = "application/json", schema = @Schema(ref = "Task")))
    public Response create(@PathParam("teamId") String teamId, @Context HttpHeaders headers, InputStream body) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        List<RequestField> fields = kinds.requestFields();
        java.util.Set<String> allowed = fields.stream().map(RequestField::name).collect(Collectors.toSet());
        allowed.add(Prerequisites.AFTER); // R53
        allowed.add(Prerequisites.AFTER_FAILURE);
        JsonObject o = RequestInput.object(body, headers.getMediaType(), allowed, limits);
        NewTaskRequest req = NewTaskRequest.of(o, fields);
        IdempotentRequest idem = IdempotentRequest.of(user.id(), headers.getHeaderString(IdempotentRequest.HEADER), "POST",
                "teams/" + team + "/tasks", o.toString());
        return TaskResource.answer(tasks.create(user.id(), team, req, idem), links);
    }

    /** One page of the team's tasks the caller may see, newest first. */
    @GET
    @Operation(operationId = "listTeamTasks", summary = "List the team's tasks the caller may see (status, kind, scheduled; keyset paging)")
    @APIResponse(responseCode = "200", description = "A page of tasks, newest first", content = @Content(mediaType = "application/json", schema = @Schema(ref = "TaskPage")))
    public PageJson<TaskJson> list(@PathParam("teamId") String teamId, @QueryParam("status") String status,
            @QueryParam("kind") String kind, @QueryParam("scheduled") String scheduled, @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        return PageJson.of(tasks.list(user.id(), team, status, kind, scheduled, RequestInput.limit(limit), cursor),
                t -> TaskJson.of(t, links));
    }

    /**
     * Live changes of the team's tasks the caller may see (issue 14): {@code text/event-stream} of events
     * {@code task}; with {@code Last-Event-ID}, first the visible tasks changed since. 404 for a
     * non-member; 429 {@code events.too_many_streams} over the cap.
     */
    @GET
    @Path("events")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Operation(operationId = "followTeamTasks", summary = "Follow the team's tasks live (Server-Sent Events; Last-Event-ID resumes)")
    @APIResponse(responseCode = "200", description = "Events `task` (data: a Task the caller may see, id: its change sequence)", content = @Content(mediaType = "text/event-stream", schema = @Schema(type = SchemaType.STRING)))
    public void events(@PathParam("teamId") String teamId, @HeaderParam("Last-Event-ID") String lastEventId,
            @Context SseEventSink sink, @Context Sse sse,
            @Context HttpServletRequest request) {
        streams.openTeam(user.id(), RequestInput.pathId(teamId, "team.not_found"), lastEventId, sink, sse,
                GrizzlyBridge.connectionOf(request));
    }
}
