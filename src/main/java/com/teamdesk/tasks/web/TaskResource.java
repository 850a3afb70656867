package com.teamdesk.tasks.web;

import com.teamdesk.tasks.task.idempotency.IdempotentRequest;
import com.teamdesk.tasks.task.service.Submitted;
import com.teamdesk.tasks.task.service.TaskRuns;
import com.teamdesk.tasks.task.service.TaskService;
import com.teamdesk.tasks.task.spi.TaskResult;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.headers.Header;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** One task: {@code /api/v1/tasks/{taskId}} (read, follow live, its executions, retry, cancel, download the export's CSV). */
@Tag(name = "tasks")
@Path("tasks/{taskId}")
@RolesAllowed(RestApplication.MEMBER)
@Produces(MediaType.APPLICATION_JSON)
public class TaskResource {
    /** Media type of an export's file (R13: UTF-8 with BOM). */
    public static final String CSV = "text/csv; charset=UTF-8";

    @Inject
    TaskService tasks;

    @Inject
    TaskRuns runs;

    @Inject
    CurrentUser user;

    @Inject
    ApiLinks links;

    @Context
    HttpHeaders headers;

    @Inject
    TaskStreams streams;

    /** @return the task, if the caller may see it (else 404) */
    @GET
    @Operation(operationId = "getTask", summary = "Get a task")
    @APIResponse(responseCode = "200", description = "The task", content = @Content(mediaType = "application/json", schema = @Schema(ref = "Task")))
    public TaskJson get(@PathParam("taskId") String taskId) {
        return TaskJson.of(tasks.get(user.id(), id(taskId)), links);
    }

    /**
     * R43: the task's executions, newest first ({@code {"items": [ExecutionJson...], "nextCursor": ...}}). Same
     * authorization as {@link #get} (404 {@code task.not_found}); 400 {@code page.limit} / {@code page.cursor}.
     *
     * @param limit  page size 1-500, default 50
     * @param cursor the previous page's {@code nextCursor}
     */
    @GET
    @Path("executions")
    @Operation(operationId = "listTaskExecutions", summary = "List a task's executions (claims, ends, outcomes; keyset paging)")
    @APIResponse(responseCode = "200", description = "A page of executions, newest first", content = @Content(mediaType = "application/json", schema = @Schema(ref = "ExecutionPage")))
    public PageJson<ExecutionJson> executions(@PathParam("taskId") String taskId, @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor) {
        return PageJson.of(tasks.executions(user.id(), id(taskId), RequestInput.limit(limit), cursor), ExecutionJson::of);
    }

    /**
     * Issue 32: what people did to the task, newest first ({@code {"items": [TaskActionJson...], "nextCursor": ...}}):
     * retries and cancels with who and when, for the task's timeline. Same authorization as {@link #get} (404
     * {@code task.not_found}); 400 {@code page.limit} / {@code page.cursor}.
     */
    @GET
    @Path("actions")
    @Operation(operationId = "listTaskActions", summary = "List who retried or cancelled a task, and when (keyset paging)")
    @APIResponse(responseCode = "200", description = "A page of actions, newest first", content = @Content(mediaType = "application/json", schema = @Schema(ref = "TaskActionPage")))
    public PageJson<TaskActionJson> actions(@PathParam("taskId") String taskId, @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor) {
        return PageJson.of(tasks.actions(user.id(), id(taskId), RequestInput.limit(limit), cursor), TaskActionJson::of);
    }

    /**
     * Live progress of one task (issue 14): {@code text/event-stream} of events {@code task} (data: the
     * Task JSON, id: its change sequence), the current state first, a comment every 15 s, ending after
     * a final state. Same authorization as {@link #get} (404); 429 {@code events.too_many_streams} over
     * the per-user or per-server cap.
     */
    @GET
    @Path("events")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Operation(operationId = "followTask", summary = "Follow a task live (Server-Sent Events; Last-Event-ID resumes)")
    @APIResponse(responseCode = "200", description = "Events `task` (data: the Task, id: its change sequence), the current state first, until a final state", content = @Content(mediaType = "text/event-stream", schema = @Schema(type = SchemaType.STRING)))
    public void events(@PathParam("taskId") String taskId, @HeaderParam("Last-Event-ID") String lastEventId,
            @Context SseEventSink sink, @Context Sse sse,
            @Context HttpServletRequest request) {
        streams.openTask(user.id(), id(taskId), lastEventId, sink, sse, GrizzlyBridge.connectionOf(request));
    }

    /** R15/R16: a new run of a FAILED or CANCELLED task; 202 means accepted, not "file ready". Honours Idempotency-Key (R25). */
    @POST
    @Path("retry")
    @Operation(operationId = "retryTask", summary = "Retry a FAILED or CANCELLED task as a new run (202; 409 task.not_failed otherwise)")
    @APIResponse(responseCode = "202", description = "Accepted: a new run is waiting (not \"file ready\")", headers = {@Header(name = "Location", description = "The task", schema = @Schema(type = SchemaType.STRING)), @Header(name = "Idempotent-Replayed", description = "true on a replay of an Idempotency-Key (R25)", schema = @Schema(type = SchemaType.STRING))}, content = @Content(mediaType = "application/json", schema = @Schema(ref = "Task")))
    public Response retry(@PathParam("taskId") String taskId) {
        UUID id = id(taskId);
        return answer(runs.retry(user.id(), id, idempotency("tasks/" + id + "/retry")), links);
    }

    /**
     * R23: cancels a WAITING or RUNNING task (200 with the task); an already CANCELLED one answers 200
     * unchanged; COMPLETED or FAILED → 409 {@code task.not_cancellable}. Honours Idempotency-Key (R25).
     */
    @POST
    @Path("cancel")
    @Operation(operationId = "cancelTask", summary = "Cancel a WAITING or RUNNING task (200; 409 task.not_cancellable when COMPLETED or FAILED)")
    @APIResponse(responseCode = "200", description = "The task, CANCELLED (or as it was when already cancelled)", headers = {@Header(name = "Location", description = "The task", schema = @Schema(type = SchemaType.STRING)), @Header(name = "Idempotent-Replayed", description = "true on a replay of an Idempotency-Key (R25)", schema = @Schema(type = SchemaType.STRING))}, content = @Content(mediaType = "application/json", schema = @Schema(ref = "Task")))
    public Response cancel(@PathParam("taskId") String taskId) {
        UUID id = id(taskId);
        return answer(runs.cancel(user.id(), id, idempotency("tasks/" + id + "/cancel")), links);
    }

    /**
     * @return the HTTP answer of a create, retry or cancel: its status (a replay's original one), the
     *         task, {@code Location} of the task, and {@code Idempotent-Replayed: true} on a replay
     */
    static Response answer(Submitted s, ApiLinks links) {
        return replayed(Response.status(s.status()).entity(TaskJson.of(s.task(), links)).location(links.task(s.task().id())),
                s.replayed()).build();
    }

    /** @return {@code b}, with {@code Idempotent-Replayed: true} when the answer is a replay's (R25) */
    static Response.ResponseBuilder replayed(Response.ResponseBuilder b, boolean replayed) {
        return replayed ? b.header("Idempotent-Replayed", "true") : b;
    }

    private IdempotentRequest idempotency(String path) {
        return IdempotentRequest.of(user.id(), headers.getHeaderString(IdempotentRequest.HEADER), "POST", path, "");
    }

    /**
     * @return the CSV of a completed export as an attachment (409 not completed, 410 expired),
     *         streamed from its stored chunks with its exact {@code Content-Length}
     */
    @GET
    @Path("result")
    @Produces(CSV)
    @Operation(operationId = "getTaskResult", summary = "Download a completed export's CSV")
    @APIResponse(responseCode = "200", description = "RFC 4180, UTF-8 with a BOM", headers = @Header(name = "Content-Disposition", schema = @Schema(type = SchemaType.STRING)), content = @Content(mediaType = "text/csv", schema = @Schema(type = SchemaType.STRING, format = "binary")))
    public Response result(@PathParam("taskId") String taskId) {
        TaskResult r = tasks.result(user.id(), id(taskId));
        String name = r.fileName().replaceAll("[^A-Za-z0-9._-]", "_");
        StreamingOutput body = r.body()::writeTo;
        return Response.ok(body, CSV).header("Content-Disposition", "attachment; filename=\"" + name + "\"")
                .header("Content-Length", r.size()).build();
    }

    private static UUID id(String taskId) {
        return RequestInput.pathId(taskId, "task.not_found");
    }
}
