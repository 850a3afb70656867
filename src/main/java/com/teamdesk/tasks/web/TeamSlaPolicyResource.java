package com.teamdesk.tasks.web;

import com.teamdesk.tasks.team.sla.SlaPolicies;
import com.teamdesk.tasks.team.sla.TicketSlas;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import java.io.InputStream;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * A team's SLA (issue 53): {@code /api/v1/teams/{teamId}/sla-policies} — read by staff, set by owners (R56) — and
 * {@code /api/v1/teams/{teamId}/sla-board}, its running promises soonest due first (R58).
 */
@ApplicationScoped
@Tag(name = "teams")
@Path("teams/{teamId}")
@RolesAllowed(RestApplication.MEMBER)
@Produces(MediaType.APPLICATION_JSON)
public class TeamSlaPolicyResource {
    @Inject
    SlaPolicies policies;

    @Inject
    TicketSlas slas;

    @Inject
    CurrentUser user;

    @Inject
    HttpLimits limits;

    /** @return the team's promises, one per priority that has one */
    @GET
    @Path("sla-policies")
    @Operation(operationId = "getTeamSlaPolicies", summary = "Get the team's SLA policies per priority (staff)")
    @APIResponse(responseCode = "200", description = "The policies", content = @Content(mediaType = "application/json", schema = @Schema(ref = "SlaPolicies")))
    public SlaJson.PoliciesJson get(@PathParam("teamId") String teamId) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        return SlaJson.PoliciesJson.of(team, policies.read(user.id(), team));
    }

    /** Sets the team's policies whole (owners); the team's unfinished clocks are re-targeted in the same commit. */
    @PUT
    @Path("sla-policies")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "putTeamSlaPolicies", summary = "Set the team's SLA policies (owners); unfinished clocks are re-targeted")
    @RequestBody(required = true, content = @Content(mediaType = "application/json", schema = @Schema(ref = "SlaPoliciesPut")))
    @APIResponse(responseCode = "200", description = "The policies as stored", content = @Content(mediaType = "application/json", schema = @Schema(ref = "SlaPolicies")))
    public SlaJson.PoliciesJson put(@PathParam("teamId") String teamId, @Context HttpHeaders headers, InputStream body) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        return SlaJson.PoliciesJson.of(team, policies.replace(user.id(), team, RequestInput.object(body,
                headers.getMediaType(), SlaPolicies.FIELDS, limits)));
    }

    /** R58: the team's breach board (staff): running promises soonest due first, at risk and overdue marked. */
    @GET
    @Path("sla-board")
    @Operation(operationId = "getTeamSlaBoard", summary = "The team's breach board: running promises, soonest due first (staff)")
    @APIResponse(responseCode = "200", description = "The board", content = @Content(mediaType = "application/json", schema = @Schema(ref = "SlaBoard")))
    public SlaJson.BoardJson board(@PathParam("teamId") String teamId, @QueryParam("limit") String limit) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        return SlaJson.BoardJson.of(slas.board(user.id(), team, RequestInput.limit(limit)));
    }
}
