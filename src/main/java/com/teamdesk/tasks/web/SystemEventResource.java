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

/** A team's audit log: {@code /api/v1/teams/{teamId}/events} (STAFF and OWNER only). */
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
    @Operation(summary = "The team's system events, newest first (staff and owners; keyset paging)")
    public PageJson<SystemEventJson> list(@PathParam("teamId") String teamId, @QueryParam("ticketId") String ticketId,
            @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        return PageJson.of(events.list(user.id(), RequestInput.pathId(teamId, "team.not_found"), ticketId,
                RequestInput.limit(limit), cursor), SystemEventJson::of);
    }
}
