package com.teamdesk.tasks.web;

import com.teamdesk.tasks.task.engine.TaskKinds;
import com.teamdesk.tasks.task.spi.KindInfo;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code GET /api/v1/kinds} (issue 29): the task kinds this server runs, each with its label, the fields
 * of a generic create form and the actions a client may offer ({@link KindInfo}), so that the console
 * shows a new kind without a change of its own.
 */
@Tag(name = "tasks")
@Path("kinds")
@RolesAllowed(RestApplication.MEMBER)
@Produces(MediaType.APPLICATION_JSON)
public class KindResource {
    @Inject
    TaskKinds kinds;

    @Inject
    CurrentUser user;

    /** @return a page of every kind, in the order of their names (no cursor: the list is short) */
    @GET
    @Operation(operationId = "listKinds", summary = "The task kinds: label, generic form fields, actions")
    @APIResponse(responseCode = "200", description = "Every registered kind", content = @Content(mediaType = "application/json", schema = @Schema(ref = "KindPage")))
    public PageJson<KindInfo> kinds() {
        user.id();
        return new PageJson<>(kinds.infos(), null);
    }
}
