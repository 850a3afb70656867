package com.teamdesk.tasks.web;

import com.teamdesk.tasks.team.SystemEventService;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** A team's audit log: {@code /api/v1/teams/{teamId}/events} (STAFF and OWNER only). */
@Tag(name = "members")
@Path("teams/{teamId}/events")
@RolesAllowed(RestApplication.MEMBER)
@Produces(MediaType.APPLICATION_JSON)
public class SystemEventResource {

    @Inject
    SystemEventService events;

    @Inject
    CurrentUser user;

    /** @return one page of the team's system events, newest first, optionally of one ticket */
    @GET
    @Operation(operationId = "listTeamEvents", summary = "The team's system events, newest first (staff and owners; keyset paging)")
    @APIResponse(responseCode = "200", description = "A page of system events", content = @Content(mediaType = "application/json", schema = @Schema(ref = "SystemEventPage")))
    public PageJson<SystemEventJson> list(@PathParam("teamId") String teamId, @QueryParam("ticketId") String ticketId,
            @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        return PageJson.of(events.list(user.id(), RequestInput.pathId(teamId, "team.not_found"), ticketId,
                RequestInput.limit(limit), cursor), SystemEventJson::of);
    }
}
