package com.teamdesk.tasks.web;

import com.teamdesk.tasks.task.idempotency.IdempotentRequest;
import com.teamdesk.tasks.task.schedule.ScheduleService;
import jakarta.annotation.security.RolesAllowed;
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

/**
 * Schedules of a team (issue 31): {@code /api/v1/teams/{teamId}/schedules} (create, list). Authorization as for
 * tasks ({@link ScheduleService}): any member schedules, a customer only SELF-scope tasks and sees only their own.
 */
@Tag(name = "schedules")
@Path("teams/{teamId}/schedules")
@RolesAllowed(RestApplication.MEMBER)
@Produces(MediaType.APPLICATION_JSON)
public class TeamScheduleResource {

    @Inject
    ScheduleService schedules;

    @Inject
    CurrentUser user;

    @Inject
    HttpLimits limits;

    @Inject
    ApiLinks links;

    @Context
    HttpHeaders headers;

    /**
     * Creates a recurring task, at most once per {@code Idempotency-Key} (R25).
     *
     * @param body {@code {name?, cron, timeZone, task: {kind, …the kind's fields, no runAt}, missedSlots?, overlap?,
     *             enabled?}}; its fields are checked by {@link ScheduleService#create} ({@code schedule.invalid} for
     *             an unknown one, also inside {@code task})
     * @return 201 with {@code Location} and {@code ETag} of the schedule; a replay of the same key and body
     *         answers the same schedule, 201, with {@code Idempotent-Replayed: true}
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "createTeamSchedule", summary = "Create a recurring task: cron and time zone (201); Idempotency-Key submits it once")
    @RequestBody(required = true, content = @Content(mediaType = "application/json", schema = @Schema(ref = "ScheduleCreate")))
    @APIResponse(responseCode = "201", description = "Created (or the schedule an earlier request with the same Idempotency-Key created)", headers = {@Header(name = "Location", schema = @Schema(type = SchemaType.STRING)), @Header(name = "ETag", description = "The version, a strong validator (\"3\")", schema = @Schema(type = SchemaType.STRING))}, content = @Content(mediaType = "application/json", schema = @Schema(ref = "Schedule")))
    public Response create(@PathParam("teamId") String teamId, InputStream body) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        JsonObject o = RequestInput.anyObject(body, headers.getMediaType(), limits);
        IdempotentRequest idem = IdempotentRequest.of(user.id(), headers.getHeaderString(IdempotentRequest.HEADER),
                "POST", "teams/" + team + "/schedules", o.toString());
        ScheduleService.Created c = schedules.create(user.id(), team, o, idem);
        return TaskResource.replayed(Response.created(links.schedule(c.view().schedule().id()))
                .tag(IfMatch.etag(c.view().schedule().version())).entity(ScheduleJson.summary(c.view(), links)),
                c.replayed()).build();
    }

    /** One page of the team's schedules the caller may see, newest first, each with its next runs. */
    @GET
    @Operation(operationId = "listTeamSchedules", summary = "List the team's schedules the caller may see (keyset paging)")
    @APIResponse(responseCode = "200", description = "A page of schedules, newest first", content = @Content(mediaType = "application/json", schema = @Schema(ref = "SchedulePage")))
    public PageJson<ScheduleJson> list(@PathParam("teamId") String teamId, @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        return PageJson.of(schedules.list(user.id(), team, cursor, RequestInput.limit(limit)),
                v -> ScheduleJson.summary(v, links));
    }
}
