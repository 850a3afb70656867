package com.teamdesk.tasks.web;

import com.teamdesk.tasks.task.schedule.ScheduleService;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
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
 * One schedule (issue 31): {@code /api/v1/schedules/{scheduleId}} (read, change, pause, resume, run now, delete).
 * A schedule the caller may not see (another team's, another customer's) answers 404 {@code schedule.not_found},
 * as a task does. Answers carry the schedule's version as {@code ETag}; a PATCH must send it back in
 * {@code If-Match} (missing → 428, stale or weak → 412, {@code *} → any version), as a ticket's.
 */
@Tag(name = "schedules")
@Path("schedules/{scheduleId}")
@RolesAllowed(RestApplication.MEMBER)
@Produces(MediaType.APPLICATION_JSON)
public class ScheduleResource {

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

    /** @return the schedule with its next runs and its last occurrences (also its version as {@code ETag}) */
    @GET
    @Operation(operationId = "getSchedule", summary = "Get a schedule: its next 5 runs and its last occurrences")
    @APIResponse(responseCode = "200", description = "The schedule with its occurrences", headers = {@Header(name = "ETag", description = "The version, a strong validator (\"3\")", schema = @Schema(type = SchemaType.STRING))}, content = @Content(mediaType = "application/json", schema = @Schema(ref = "Schedule")))
    public Response get(@PathParam("scheduleId") String scheduleId) {
        ScheduleService.View v = schedules.get(user.id(), id(scheduleId));
        return Response.ok(ScheduleJson.detail(v, links)).tag(IfMatch.etag(v.schedule().version())).build();
    }

    /**
     * Changes a schedule at the version named by {@code If-Match}.
     *
     * @param ifMatch the version last read: {@code "3"}, {@code 3} or {@code *}
     * @param body    any of the create body's fields; a new cron or zone starts from the next slot after now
     */
    @PATCH
    @Consumes({MediaType.APPLICATION_JSON, "application/merge-patch+json"})
    @Operation(operationId = "updateSchedule", summary = "Change a schedule (If-Match: version; 412 when stale, 428 when missing)")
    @RequestBody(required = true, content = @Content(mediaType = "application/json", schema = @Schema(ref = "ScheduleChanges")))
    @APIResponse(responseCode = "200", description = "The schedule (the same version when nothing changed)", headers = {@Header(name = "ETag", description = "The version, a strong validator (\"3\")", schema = @Schema(type = SchemaType.STRING))}, content = @Content(mediaType = "application/json", schema = @Schema(ref = "Schedule")))
    public Response patch(@PathParam("scheduleId") String scheduleId, @HeaderParam(HttpHeaders.IF_MATCH) String ifMatch,
            InputStream body) {
        UUID id = id(scheduleId);
        int version = IfMatch.version(ifMatch, "schedule", ScheduleService.ANY_VERSION, ScheduleService.NO_VERSION);
        return answer(schedules.update(user.id(), id, version, RequestInput.anyObject(body, headers.getMediaType(), limits)));
    }

    /** Pauses: no slot runs until it is resumed; 200 with the schedule, also when it was paused already. */
    @POST
    @Path("pause")
    @Operation(operationId = "pauseSchedule", summary = "Pause a schedule (200)")
    @APIResponse(responseCode = "200", description = "The schedule, paused", headers = {@Header(name = "ETag", description = "The version, a strong validator (\"3\")", schema = @Schema(type = SchemaType.STRING))}, content = @Content(mediaType = "application/json", schema = @Schema(ref = "Schedule")))
    public Response pause(@PathParam("scheduleId") String scheduleId) {
        return answer(schedules.pause(user.id(), id(scheduleId)));
    }

    /** Resumes from the next slot after now (the slots while it was paused do not run); 200 with the schedule. */
    @POST
    @Path("resume")
    @Operation(operationId = "resumeSchedule", summary = "Resume a schedule from its next slot (200)")
    @APIResponse(responseCode = "200", description = "The schedule, enabled", headers = {@Header(name = "ETag", description = "The version, a strong validator (\"3\")", schema = @Schema(type = SchemaType.STRING))}, content = @Content(mediaType = "application/json", schema = @Schema(ref = "Schedule")))
    public Response resume(@PathParam("scheduleId") String scheduleId) {
        return answer(schedules.resume(user.id(), id(scheduleId)));
    }

    /**
     * "Run now": one extra occurrence now, not a slot (its {@code slotAt} is null; the slots are unchanged).
     *
     * @return 202 Accepted with {@code Location} of the task and the task, as a task's create answers
     */
    @POST
    @Path("run-now")
    @Operation(operationId = "runScheduleNow", summary = "Run a schedule's task once now, besides its slots (202 with the task)")
    @APIResponse(responseCode = "202", description = "Accepted: the occurrence, WAITING", headers = {@Header(name = "Location", schema = @Schema(type = SchemaType.STRING))}, content = @Content(mediaType = "application/json", schema = @Schema(ref = "Task")))
    public Response runNow(@PathParam("scheduleId") String scheduleId) {
        BackgroundTask t = schedules.runNow(user.id(), id(scheduleId));
        return Response.accepted(TaskJson.of(t, links)).location(links.task(t.id())).build();
    }

    /** Deletes a schedule (204); its occurrences stay as tasks, no longer linked to it. */
    @DELETE
    @Operation(operationId = "deleteSchedule", summary = "Delete a schedule (204); its tasks stay")
    @APIResponse(responseCode = "204", description = "Deleted")
    public Response delete(@PathParam("scheduleId") String scheduleId) {
        schedules.delete(user.id(), id(scheduleId));
        return Response.noContent().build();
    }

    private Response answer(ScheduleService.View v) {
        return Response.ok(ScheduleJson.summary(v, links)).tag(IfMatch.etag(v.schedule().version())).build();
    }

    private static UUID id(String scheduleId) {
        return RequestInput.pathId(scheduleId, "schedule.not_found");
    }
}
