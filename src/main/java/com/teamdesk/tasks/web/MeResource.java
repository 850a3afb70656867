package com.teamdesk.tasks.web;

import com.teamdesk.tasks.team.EmailSettings;
import com.teamdesk.tasks.team.MemberProfile;
import com.teamdesk.tasks.team.MemberService;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.json.bind.annotation.JsonbNillable;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import java.io.InputStream;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** The caller's own views: {@code /api/v1/me}, {@code /api/v1/me/notifications} and {@code /api/v1/me/email-settings}. */
@Tag(name = "members")
@Path("me")
@RolesAllowed(RestApplication.MEMBER)
@Produces(MediaType.APPLICATION_JSON)
public class MeResource {

    @Inject
    MemberService members;

    @Inject
    CurrentUser user;

    @Inject
    EmailSettings emailSettings;

    @Inject
    HttpLimits limits;

    /**
     * R60: a member's email settings as the API shows them.
     *
     * @param email their address, or null (no email)
     * @param kinds per task kind, whether its notifications come by email (a kind not named: yes)
     */
    @JsonbNillable
    @Schema(name = "EmailSettings")
    public record EmailSettingsJson(String email, Map<String, Boolean> kinds) {
        static EmailSettingsJson of(EmailSettings.View v) {
            return new EmailSettingsJson(v.email(), v.kinds());
        }
    }

    /** @return the caller's email address and per-kind email choices (R60) */
    @GET
    @Path("email-settings")
    @Operation(operationId = "getMyEmailSettings", summary = "Where the caller's notifications go by email")
    @APIResponse(responseCode = "200", description = "The settings", content = @Content(mediaType = "application/json", schema = @Schema(ref = "EmailSettings")))
    public EmailSettingsJson emailSettings() {
        return EmailSettingsJson.of(emailSettings.read(user.id()));
    }

    /** @return the settings as stored (R60); 400 {@code settings.email_invalid}, {@code settings.invalid} */
    @PUT
    @Path("email-settings")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "putMyEmailSettings", summary = "Set the caller's email address and which kinds come by email")
    @RequestBody(required = true, content = @Content(mediaType = "application/json", schema = @Schema(ref = "EmailSettingsPut")))
    @APIResponse(responseCode = "200", description = "The settings as stored", content = @Content(mediaType = "application/json", schema = @Schema(ref = "EmailSettings")))
    public EmailSettingsJson putEmailSettings(@Context HttpHeaders headers, InputStream body) {
        return EmailSettingsJson.of(emailSettings.replace(user.id(), RequestInput.object(body, headers.getMediaType(),
                EmailSettings.FIELDS, limits)));
    }

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
