package com.teamdesk.tasks.web;

import com.teamdesk.tasks.team.sla.SlaPolicies;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
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

/** A team's SLA policies (issue 53, R56): {@code /api/v1/teams/{teamId}/sla-policies} — read by staff, set by owners. */
@ApplicationScoped
@Tag(name = "teams")
@Path("teams/{teamId}/sla-policies")
@RolesAllowed(RestApplication.MEMBER)
@Produces(MediaType.APPLICATION_JSON)
public class TeamSlaPolicyResource {
    @Inject
    SlaPolicies policies;

    @Inject
    CurrentUser user;

    @Inject
    HttpLimits limits;

    /** @return the team's promises, one per priority that has one */
    @GET
    @Operation(operationId = "getTeamSlaPolicies", summary = "Get the team's SLA policies per priority (staff)")
    @APIResponse(responseCode = "200", description = "The policies", content = @Content(mediaType = "application/json", schema = @Schema(ref = "SlaPolicies")))
    public SlaJson.PoliciesJson get(@PathParam("teamId") String teamId) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        return SlaJson.PoliciesJson.of(team, policies.read(user.id(), team));
    }

    /** Sets the team's policies whole (owners); the team's unfinished clocks are re-targeted in the same commit. */
    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "putTeamSlaPolicies", summary = "Set the team's SLA policies (owners); unfinished clocks are re-targeted")
    @RequestBody(required = true, content = @Content(mediaType = "application/json", schema = @Schema(ref = "SlaPoliciesPut")))
    @APIResponse(responseCode = "200", description = "The policies as stored", content = @Content(mediaType = "application/json", schema = @Schema(ref = "SlaPolicies")))
    public SlaJson.PoliciesJson put(@PathParam("teamId") String teamId, @Context HttpHeaders headers, InputStream body) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        return SlaJson.PoliciesJson.of(team, policies.replace(user.id(), team, RequestInput.object(body,
                headers.getMediaType(), SlaPolicies.FIELDS, limits)));
    }
}
