package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.ClientValues;
import com.teamdesk.tasks.platform.ConnectionBudget;
import com.teamdesk.tasks.task.admin.AdminService;
import com.teamdesk.tasks.task.admin.AdminViews.AdminExecution;
import com.teamdesk.tasks.task.admin.AdminViews.AdminTask;
import com.teamdesk.tasks.task.admin.AdminViews.BulkRetry;
import com.teamdesk.tasks.task.admin.AdminViews.ExecutionSummary;
import com.teamdesk.tasks.task.admin.AdminViews.InstanceTimers;
import com.teamdesk.tasks.task.admin.AdminViews.Overview;
import com.teamdesk.tasks.task.admin.AdminViews.WorkerView;
import com.teamdesk.tasks.task.fairshare.TeamQueueLimits.TeamLimit;
import com.teamdesk.tasks.task.fairshare.TeamQueueLimits;
import com.teamdesk.tasks.task.live.LiveFanOut;
import com.teamdesk.tasks.task.schedule.ScheduleService;
import com.teamdesk.tasks.task.sweep.SweepStatus;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import java.io.InputStream;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * The operator API {@code /api/v1/admin} (issue 14): only tokens whose {@code groups} contain
 * {@code operator} (403 {@code auth.forbidden} for everyone else, team owners included). Thin: each
 * method calls one {@link AdminService} method; lists answer the API's page shape.
 *
 * <p>Why one class of about 350 lines: one resource per API path prefix, as the OpenAPI document groups it (tag
 * {@code operators}); each method is a few lines of annotations and one service call, so it is long but flat.
 */
@Tag(name = "operators")
@Path("admin")
@RolesAllowed(RestApplication.OPERATOR)
@Produces(MediaType.APPLICATION_JSON)
public class AdminResource {
    private static final Set<String> RETRY_FIELDS = Set.of("kind", "team", "olderThan", "limit", "status");
    private static final Set<String> LIMIT_FIELDS = Set.of("maxRunning");
    private static final Set<String> RATE_FIELDS = Set.of("perMinute");

    @Inject
    AdminService admin;

    @Inject
    ConnectionBudget budget;

    @Inject
    LiveFanOut streams;

    @Inject
    TeamQueueLimits teamLimits;

    @Inject
    com.teamdesk.tasks.task.engine.TaskKinds kinds;

    @Inject
    ScheduleService schedules;

    @Inject
    ApiLinks links;

    @Inject
    CurrentUser user;

    @Inject
    HttpLimits limits;

    @Context
    HttpHeaders headers;

    /**
     * @return this instance's connection budget (issue 17): live instances, PostgreSQL connections per
     *         instance, {@code max_connections}, whether they fit ({@code maxConnections} -1 and
     *         {@code fits} false when PostgreSQL could not be asked)
     */
    @GET
    @Path("capacity")
    @Operation(operationId = "getCapacity", summary = "Connection budget of the instances (operators)")
    @APIResponse(responseCode = "200", description = "The budget", content = @Content(mediaType = "application/json", schema = @Schema(ref = "Verdict")))
    public ConnectionBudget.Verdict capacity() {
        user.id();
        return budget.check();
    }

    /**
     * @return this instance's live event streams (issue 34): open, the caps, the watch's period, users with
     *         open streams (most first); the same count as {@code teamdesk_event_streams_open}
     */
    @GET
    @Path("streams")
    @Operation(operationId = "getStreams", summary = "Open event streams of this instance (operators)")
    @APIResponse(responseCode = "200", description = "The streams", content = @Content(mediaType = "application/json", schema = @Schema(ref = "StreamsView")))
    public LiveFanOut.StreamsView streams() {
        user.id();
        return streams.view();
    }

    /** @return counts by status × kind, oldest WAITING age, due-but-undispatched, RUNNING runs, queue counts */
    @GET
    @Path("overview")
    @Operation(operationId = "getOverview", summary = "Engine overview (operators)")
    @APIResponse(responseCode = "200", description = "The overview", content = @Content(mediaType = "application/json", schema = @Schema(ref = "Overview")))
    public Overview overview() {
        user.id();
        return admin.overview();
    }

    /** @return every queue worker seen in the last day: live, then gone */
    @GET
    @Path("workers")
    @Operation(operationId = "listWorkers", summary = "Queue workers from their heartbeats (operators)")
    @APIResponse(responseCode = "200", description = "Every worker seen in the last day", content = @Content(mediaType = "application/json", schema = @Schema(ref = "WorkerPage")))
    public PageJson<WorkerView> workers() {
        user.id();
        return new PageJson<>(admin.workers(), null);
    }

    /** @return the queue's jobs by state, read from Redis */
    @GET
    @Path("queue")
    @Operation(operationId = "getQueueCounts", summary = "Queue counts by state (operators)")
    @APIResponse(responseCode = "200", description = "Jobs by state", content = @Content(mediaType = "application/json", schema = @Schema(type = SchemaType.OBJECT, additionalProperties = Long.class)))
    public Map<String, Long> queue() {
        user.id();
        return admin.queue();
    }

    /** @return the EJB sweeps of every instance: schedule, next timeout, last run, outcome, rows, paused */
    @GET
    @Path("timers")
    @Operation(operationId = "listTimers", summary = "EJB timers of every instance (operators)")
    @APIResponse(responseCode = "200", description = "The sweeps of every instance", content = @Content(mediaType = "application/json", schema = @Schema(ref = "TimerPage")))
    public PageJson<InstanceTimers> timers() {
        user.id();
        return new PageJson<>(admin.timers(), null);
    }

    /** Pauses a sweep on every instance. */
    @POST
    @Path("timers/{name}/pause")
    @Operation(operationId = "pauseTimer", summary = "Pause a sweep on every instance (operators)")
    @APIResponse(responseCode = "200", description = "The sweep", content = @Content(mediaType = "application/json", schema = @Schema(ref = "SweepStatus")))
    public SweepStatus pause(@PathParam("name") String name) {
        return admin.pause(user.id(), name);
    }

    /** Resumes a sweep on every instance. */
    @POST
    @Path("timers/{name}/resume")
    @Operation(operationId = "resumeTimer", summary = "Resume a sweep on every instance (operators)")
    @APIResponse(responseCode = "200", description = "The sweep", content = @Content(mediaType = "application/json", schema = @Schema(ref = "SweepStatus")))
    public SweepStatus resume(@PathParam("name") String name) {
        return admin.resume(user.id(), name);
    }

    /** Runs a sweep once now on this instance and answers its status after the run. */
    @POST
    @Path("timers/{name}/run")
    @Operation(operationId = "runTimer", summary = "Run a sweep once now on this instance (operators)")
    @APIResponse(responseCode = "200", description = "The sweep after its run", content = @Content(mediaType = "application/json", schema = @Schema(ref = "SweepStatus")))
    public SweepStatus run(@PathParam("name") String name) {
        return admin.run(user.id(), name);
    }

    /** @return one page of tasks across teams (status, kind, team, olderThan; newest first) */
    @GET
    @Path("tasks")
    @Operation(operationId = "listAllTasks", summary = "Tasks across teams (operators)")
    @APIResponse(responseCode = "200", description = "A page of tasks, newest first", content = @Content(mediaType = "application/json", schema = @Schema(ref = "AdminTaskPage")))
    public PageJson<AdminTask> tasks(@QueryParam("status") String status, @QueryParam("kind") String kind,
            @QueryParam("team") String team, @QueryParam("olderThan") String olderThan,
            @QueryParam("limit") String limit, @QueryParam("cursor") String cursor) {
        user.id();
        return PageJson.of(admin.list(status, kind, team, olderThan, RequestInput.limit(limit), cursor), t -> t);
    }

    /**
     * R44: one page of executions across teams, newest claim first ({@link AdminService#executions}): filters
     * {@code outcome} (comma-separated; {@code RUNNING} for open ones), {@code worker}, {@code team}, {@code kind},
     * {@code from}, {@code to} (instants, or durations back from now). 400 {@code filters.invalid} for a bad filter.
     */
    @GET
    @Path("executions")
    @Operation(operationId = "listAllExecutions", summary = "Executions across teams, by outcome, worker, team, kind and time range (operators)")
    @APIResponse(responseCode = "200", description = "A page of executions, newest claim first", content = @Content(mediaType = "application/json", schema = @Schema(ref = "AdminExecutionPage")))
    public PageJson<AdminExecution> executions(@QueryParam("outcome") String outcome,
            @QueryParam("worker") String worker, @QueryParam("team") String team, @QueryParam("kind") String kind,
            @QueryParam("from") String from, @QueryParam("to") String to, @QueryParam("limit") String limit,
            @QueryParam("cursor") String cursor) {
        user.id();
        return PageJson.of(admin.executions(outcome, worker, team, kind, from, to, RequestInput.limit(limit), cursor),
                e -> e);
    }

    /** R44: the executions matching the same filters as {@code GET executions}, counted by outcome. */
    @GET
    @Path("executions/summary")
    @Operation(operationId = "summarizeExecutions", summary = "How the executions of a time range ended, by outcome (operators)")
    @APIResponse(responseCode = "200", description = "Counts by outcome", content = @Content(mediaType = "application/json", schema = @Schema(ref = "ExecutionSummary")))
    public ExecutionSummary executionSummary(@QueryParam("outcome") String outcome,
            @QueryParam("worker") String worker, @QueryParam("team") String team, @QueryParam("kind") String kind,
            @QueryParam("from") String from, @QueryParam("to") String to) {
        user.id();
        return admin.executionSummary(outcome, worker, team, kind, from, to);
    }

    /** @return a task with every field but the CSV */
    @GET
    @Path("tasks/{taskId}")
    @Operation(operationId = "getAnyTask", summary = "A task's every field but the CSV (operators)")
    @APIResponse(responseCode = "200", description = "The task", content = @Content(mediaType = "application/json", schema = @Schema(ref = "AdminTask")))
    public AdminTask task(@PathParam("taskId") String taskId) {
        user.id();
        return admin.get(RequestInput.pathId(taskId, "task.not_found"));
    }

    /**
     * Retries FAILED tasks matching {@code {kind?, team?, olderThan?, limit?}} (limit default 100, at most 500).
     */
    @POST
    @Path("tasks/retry")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "retryFailedTasks", summary = "Retry FAILED tasks matching a filter, bounded (operators)")
    @RequestBody(required = true, content = @Content(mediaType = "application/json", schema = @Schema(ref = "BulkRetryRequest")))
    @APIResponse(responseCode = "200", description = "What was retried and what was skipped, with why", content = @Content(mediaType = "application/json", schema = @Schema(ref = "BulkRetry")))
    public BulkRetry retry(InputStream body) {
        JsonObject o = RequestInput.object(body, headers.getMediaType(), RETRY_FIELDS, limits);
        String status = RequestInput.string(o, "status");
        if (status != null && !"FAILED".equals(ClientValues.asciiName(status))) { // "faıled" is no status (R49)
            throw new com.teamdesk.tasks.common.InvalidInputException("filters.invalid", "Only FAILED tasks are retried.");
        }
        JsonValue l = o.get("limit");
        Integer limit = ClientValues.intOf(l);
        if (limit == null && l != null && l.getValueType() != JsonValue.ValueType.NULL) { // never wrapped (issue 49)
            throw new com.teamdesk.tasks.common.InvalidInputException("admin.retry_limit",
                    "limit must be an integer between 1 and " + AdminService.MAX_BULK_RETRY + ".");
        }
        return admin.retry(user.id(), RequestInput.string(o, "kind"), RequestInput.string(o, "team"),
                RequestInput.string(o, "olderThan"), limit);
    }

    /** @return every team with a cap of running tasks, or with tasks waiting or running (issue 30) */
    @GET
    @Path("limits")
    @Operation(operationId = "listTeamLimits", summary = "Teams' caps of running tasks, with their waiting and running counts (operators)")
    @APIResponse(responseCode = "200", description = "Every team with a limit or tasks", content = @Content(mediaType = "application/json", schema = @Schema(ref = "TeamLimitPage")))
    public PageJson<TeamLimit> teamLimits() {
        user.id();
        return new PageJson<>(teamLimits.list(), null);
    }

    /**
     * Sets ({@code {"maxRunning": 1-1000}}) or clears ({@code {"maxRunning": null}}) a team's cap of tasks running
     * at once across every instance (issue 30); audited as {@code admin.team.limits}.
     */
    @PUT
    @Path("teams/{teamId}/limits")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "setTeamLimit", summary = "Set or clear a team's cap of running tasks (operators)")
    @RequestBody(required = true, content = @Content(mediaType = "application/json", schema = @Schema(ref = "TeamCapRequest")))
    @APIResponse(responseCode = "200", description = "The team's limits", content = @Content(mediaType = "application/json", schema = @Schema(ref = "TeamLimit")))
    public TeamLimit setTeamLimit(@PathParam("teamId") String teamId, InputStream body) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        JsonObject o = RequestInput.object(body, headers.getMediaType(), LIMIT_FIELDS, limits);
        return teamLimits.set(user.id(), team, intOrNull(o, "maxRunning", TeamQueueLimits.MAX));
    }

    /**
     * Sets ({@code {"perMinute": 1-100000}}) or clears ({@code {"perMinute": null}}) a team's rate limit of one kind:
     * at most that many of its tasks of the kind start per minute, on every instance together (issue 30); audited
     * as {@code admin.team.rate_limit}.
     */
    @PUT
    @Path("teams/{teamId}/limits/{kind}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "setTeamRateLimit", summary = "Set or clear a team's rate limit of one kind, tasks per minute (operators)")
    @RequestBody(required = true, content = @Content(mediaType = "application/json", schema = @Schema(ref = "RateLimitRequest")))
    @APIResponse(responseCode = "200", description = "The team's limits", content = @Content(mediaType = "application/json", schema = @Schema(ref = "TeamLimit")))
    public TeamLimit setTeamRateLimit(@PathParam("teamId") String teamId, @PathParam("kind") String kind,
            InputStream body) {
        UUID team = RequestInput.pathId(teamId, "team.not_found");
        com.teamdesk.tasks.task.spi.TaskKind k = kinds.parseRequired(kind, "kind", "limits.invalid");
        JsonObject o = RequestInput.object(body, headers.getMediaType(), RATE_FIELDS, limits);
        return teamLimits.setRate(user.id(), team, k, intOrNull(o, "perMinute", TeamQueueLimits.MAX_PER_MINUTE));
    }

    /**
     * Every team's schedules (issue 31), the enabled ones by next slot first; {@code due=true}: only those whose
     * next slot has passed and is not materialised yet (the dispatch sweep is paused or behind).
     *
     * @return one page, {@code nextCursor} null (at most {@code limit}, default 50, 1-500)
     */
    @GET
    @Path("schedules")
    @Operation(operationId = "listAllSchedules", summary = "Schedules across teams; due=true: due but not materialised (operators)")
    @APIResponse(responseCode = "200", description = "Schedules, enabled ones by next slot first", content = @Content(mediaType = "application/json", schema = @Schema(ref = "SchedulePage")))
    public PageJson<ScheduleJson> schedules(@QueryParam("due") String due, @QueryParam("limit") String limit) {
        user.id();
        boolean dueOnly = switch (due == null ? "" : due.strip()) {
            case "", "false" -> false;
            case "true" -> true;
            default -> throw new com.teamdesk.tasks.common.InvalidInputException("schedule.invalid",
                    "due must be true or false.");
        };
        return new PageJson<>(schedules.listAll(dueOnly, com.teamdesk.tasks.common.Page.limit(RequestInput.limit(limit)))
                .stream().map(v -> ScheduleJson.summary(v, links)).toList(), null);
    }

    /** Pauses any team's schedule (issue 31), with {@code disabledReason} "Paused by an operator."; audited. */
    @POST
    @Path("schedules/{scheduleId}/pause")
    @Operation(operationId = "pauseAnySchedule", summary = "Pause any team's schedule (operators; audited)")
    @APIResponse(responseCode = "200", description = "The schedule, paused", content = @Content(mediaType = "application/json", schema = @Schema(ref = "Schedule")))
    public ScheduleJson pauseSchedule(@PathParam("scheduleId") String scheduleId) {
        return ScheduleJson.summary(schedules.pauseByOperator(user.id(),
                RequestInput.pathId(scheduleId, "schedule.not_found")), links);
    }

    /** A required field that is an integer (range checked by the service) or null; 400 {@code limits.invalid} else. */
    private static Integer intOrNull(JsonObject o, String field, int max) {
        JsonValue v = o.get(field);
        if (v == null) {
            throw new com.teamdesk.tasks.common.InvalidInputException("limits.invalid",
                    field + " is required: 1-" + max + ", or null for none.");
        } else if (v.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        Integer n = ClientValues.intOf(v);
        if (n != null) {
            return n;
        }
        throw new com.teamdesk.tasks.common.InvalidInputException("limits.invalid",
                field + " must be an integer 1-" + max + ", or null for none.");
    }
}
