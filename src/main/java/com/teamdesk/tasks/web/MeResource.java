package com.teamdesk.tasks.web;

import com.teamdesk.tasks.team.MemberProfile;
import com.teamdesk.tasks.team.MemberService;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** The caller's own views: {@code /api/v1/me} and {@code /api/v1/me/notifications}. */
@Tag(name = "members")
@Path("me")
@RolesAllowed(RestApplication.MEMBER)
@Produces(MediaType.APPLICATION_JSON)
public class MeResource {

    @Inject
    MemberService members;

    @Inject
    CurrentUser user;

    /** @return {@code {id, username, displayName, memberships: [{teamId, teamName, role}]}} */
    @GET
    @Operation(operationId = "getMe", summary = "The caller and their teams")
    @APIResponse(responseCode = "200", description = "The caller", content = @Content(mediaType = "application/json", schema = @Schema(ref = "MemberProfile")))
    public MemberProfile me() {
        return members.me(user.id());
    }

    /** @return one page of the caller's notifications, newest first */
    @GET
    @Path("notifications")
    @Operation(operationId = "listMyNotifications", summary = "The caller's notifications, newest first (keyset paging)")
    @APIResponse(responseCode = "200", description = "A page of notifications", content = @Content(mediaType = "application/json", schema = @Schema(ref = "NotificationPage")))
    public PageJson<NotificationJson> notifications(@QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor) {
        return PageJson.of(members.notifications(user.id(), RequestInput.limit(limit), cursor), NotificationJson::of);
    }
}
