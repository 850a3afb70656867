package com.teamdesk.tasks.web;

import com.teamdesk.tasks.team.calendar.TeamCalendars;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
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
 * A team's calendar (issue 53, R55): {@code /api/v1/teams/{teamId}/calendar} — read by staff and owners, set by
 * owners, its holidays importable from an iCalendar file.
 */
@ApplicationScoped
@Tag(name = "teams")
@Path("teams/{teamId}/calendar")
@RolesAllowed(RestApplication.MEMBER)
@Produces(MediaType.APPLICATION_JSON)
public class TeamCalendarResource {
    /** The media type of an iCalendar file (RFC 5545). */
    public static final String TEXT_CALENDAR = "text/calendar";
    private static final int ANY = -1;
    private static final int NO_VERSION = -2;

    @Inject
    TeamCalendars calendars;

    @Inject
    CurrentUser user;

    @Inject
    HttpLimits limits;

    /** @return 200 with the calendar and its version as {@code ETag} */
    @GET
    @Operation(operationId = "getTeamCalendar", summary = "Get the team's calendar: its zone, shifts and holidays (staff)")
    @APIResponse(responseCode = "200", description = "The calendar", headers = {@Header(name = "ETag", description = "The version, a strong validator (\"3\")", schema = @Schema(type = SchemaType.STRING))}, content = @Content(mediaType = "application/json", schema = @Schema(ref = "Calendar")))
    public Response get(@PathParam("teamId") String teamId) {
        return answer(calendars.read(user.id(), team(teamId)));
    }

    /**
     * Sets the whole calendar (owners). {@code If-Match} is optional: with it, the write happens only at that version.
     *
     * @return 200 with the calendar as stored
     */
    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "putTeamCalendar", summary = "Set the team's calendar (owners; If-Match optional, 412 when stale)")
    @RequestBody(required = true, content = @Content(mediaType = "application/json", schema = @Schema(ref = "CalendarPut")))
    @APIResponse(responseCode = "200", description = "The calendar as stored", headers = {@Header(name = "ETag", description = "The version, a strong validator (\"3\")", schema = @Schema(type = SchemaType.STRING))}, content = @Content(mediaType = "application/json", schema = @Schema(ref = "Calendar")))
    public Response put(@PathParam("teamId") String teamId, @HeaderParam(HttpHeaders.IF_MATCH) String ifMatch,
            @Context HttpHeaders headers, InputStream body) {
        UUID team = team(teamId);
        Integer version = version(ifMatch);
        return answer(calendars.replace(user.id(), team, RequestInput.object(body, headers.getMediaType(),
                TeamCalendars.FIELDS, limits), version));
    }

    /**
     * Adds the holidays of an iCalendar file ({@code text/calendar}) to the calendar (owners).
     *
     * @return 200 with the calendar as stored
     */
    @POST
    @Path("holidays")
    @Consumes(TEXT_CALENDAR)
    @Operation(operationId = "importTeamHolidays", summary = "Add the holidays of an iCalendar file (text/calendar) to the team's calendar (owners)")
    @RequestBody(required = true, content = @Content(mediaType = TEXT_CALENDAR, schema = @Schema(type = SchemaType.STRING)))
    @APIResponse(responseCode = "200", description = "The calendar with the file's holidays", headers = {@Header(name = "ETag", description = "The version, a strong validator (\"3\")", schema = @Schema(type = SchemaType.STRING))}, content = @Content(mediaType = "application/json", schema = @Schema(ref = "Calendar")))
    public Response importHolidays(@PathParam("teamId") String teamId, @HeaderParam(HttpHeaders.IF_MATCH) String ifMatch,
            @Context HttpHeaders headers, InputStream body) {
        UUID team = team(teamId);
        Integer version = version(ifMatch);
        RequestInput.requireUtf8(headers.getMediaType());
        String ics = RequestInput.utf8(RequestInput.read(body, limits.maxBodyBytes()));
        return answer(calendars.addHolidays(user.id(), team, ics, version));
    }

    private static UUID team(String teamId) {
        return RequestInput.pathId(teamId, "team.not_found");
    }

    /** @return null without If-Match (no check), else the version it names; a weak or {@code *} one as the API reads it */
    private static Integer version(String ifMatch) {
        if (ifMatch == null || ifMatch.isBlank()) {
            return null;
        }
        int v = IfMatch.version(ifMatch, "calendar", ANY, NO_VERSION);
        if (v == ANY) {
            return null;
        }
        if (v < ANY) {
            return Integer.MIN_VALUE; // only weak validators: never the current version (412)
        }
        return v;
    }

    private static Response answer(TeamCalendars.Stored s) {
        return Response.ok(CalendarJson.of(s)).tag(IfMatch.etag(s.version())).build();
    }

}
