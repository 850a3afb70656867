package com.teamdesk.tasks.web;

import com.teamdesk.tasks.task.admin.AdminViews.AdminExecution;
import com.teamdesk.tasks.task.admin.AdminViews.AdminTask;
import com.teamdesk.tasks.task.admin.AdminViews.InstanceTimers;
import com.teamdesk.tasks.task.admin.AdminViews.WorkerView;
import com.teamdesk.tasks.task.fairshare.TeamQueueLimits.TeamLimit;
import com.teamdesk.tasks.task.schedule.Schedule;
import com.teamdesk.tasks.task.spi.KindInfo;
import com.teamdesk.tasks.team.Priority;
import com.teamdesk.tasks.team.TicketStatus;
import jakarta.json.JsonObject;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The shapes of the API's request bodies and pages as the OpenAPI document names them (issue 50). The resources
 * read bodies as JSON objects themselves, field by field (so that each refusal has its own code, R49), and answer
 * pages as {@link PageJson}; these records only tell the document what those look like. Never instantiated.
 */
final class ApiSchemas {
    private ApiSchemas() {
    }

    /** A page of tasks. */
    @Schema(name = "TaskPage")
    record TaskPage(List<TaskJson> items, String nextCursor) {
    }

    /** A page of batches (issue 52). */
    @Schema(name = "BatchPage")
    record BatchPage(List<BatchJson> items, String nextCursor) {
    }

    /** A page of tickets. */
    @Schema(name = "TicketPage")
    record TicketPage(List<TicketJson> items, String nextCursor) {
    }

    /** A page of a ticket's replies (issue 53). */
    @Schema(name = "TicketReplyPage")
    record TicketReplyPage(List<SlaJson.ReplyJson> items, String nextCursor) {
    }

    /** A page of schedules. */
    @Schema(name = "SchedulePage")
    record SchedulePage(List<ScheduleJson> items, String nextCursor) {
    }

    /** A page of a task's executions. */
    @Schema(name = "ExecutionPage")
    record ExecutionPage(List<ExecutionJson> items, String nextCursor) {
    }

    /** A page of a task's actions. */
    @Schema(name = "TaskActionPage")
    record TaskActionPage(List<TaskActionJson> items, String nextCursor) {
    }

    /** A page of the caller's notifications. */
    @Schema(name = "NotificationPage")
    record NotificationPage(List<NotificationJson> items, String nextCursor) {
    }

    /** A page of a team's system events. */
    @Schema(name = "SystemEventPage")
    record SystemEventPage(List<SystemEventJson> items, String nextCursor) {
    }

    /** The registered kinds (one page, no cursor). */
    @Schema(name = "KindPage")
    record KindPage(List<KindInfo> items, String nextCursor) {
    }

    /** A page of tasks across teams (operators). */
    @Schema(name = "AdminTaskPage")
    record AdminTaskPage(List<AdminTask> items, String nextCursor) {
    }

    /** A page of executions across teams (operators). */
    @Schema(name = "AdminExecutionPage")
    record AdminExecutionPage(List<AdminExecution> items, String nextCursor) {
    }

    /** The queue workers (operators; one page). */
    @Schema(name = "WorkerPage")
    record WorkerPage(List<WorkerView> items, String nextCursor) {
    }

    /** The sweeps of every instance (operators; one page). */
    @Schema(name = "TimerPage")
    record TimerPage(List<InstanceTimers> items, String nextCursor) {
    }

    /** The teams' limits (operators; one page). */
    @Schema(name = "TeamLimitPage")
    record TeamLimitPage(List<TeamLimit> items, String nextCursor) {
    }

    /** {@code POST /teams/{teamId}/tickets}. */
    @Schema(name = "TicketCreate", requiredProperties = "title")
    record TicketCreate(@Schema(minLength = 1, maxLength = 200) String title, String body, Priority priority,
            UUID assigneeId) {
    }

    /** {@code PATCH /teams/{teamId}/tickets/{ticketId}}: any of the fields; {@code assigneeId} null unassigns. */
    @Schema(name = "TicketChanges")
    record TicketPatch(@Schema(minLength = 1, maxLength = 200) String title, String body, TicketStatus status,
            Priority priority, @Schema(nullable = true) UUID assigneeId) {
    }

    /**
     * {@code POST /teams/{teamId}/schedules}; a PATCH takes any of the fields. {@code task} is a task's create body
     * without {@code runAt}.
     */
    @Schema(name = "ScheduleCreate", requiredProperties = {"cron", "timeZone", "task"})
    record ScheduleCreate(@Schema(minLength = 1, maxLength = 200) String name,
            @Schema(description = "5-field cron (minute hour day-of-month month day-of-week) or @hourly, @daily,"
                    + " @weekly, @monthly, @yearly", example = "0 9 * * MON") String cron,
            @Schema(description = "IANA time zone", example = "Asia/Shanghai") String timeZone,
            @Schema(ref = "TaskCreate") JsonObject task, Schedule.MissedSlots missedSlots, Schedule.Overlap overlap,
            Boolean enabled) {
    }

    /** {@code PATCH /schedules/{id}}: any field of {@link ScheduleCreate}. */
    @Schema(name = "ScheduleChanges")
    record SchedulePatch(@Schema(minLength = 1, maxLength = 200) String name, String cron, String timeZone,
            @Schema(ref = "TaskCreate") JsonObject task, Schedule.MissedSlots missedSlots, Schedule.Overlap overlap,
            Boolean enabled) {
    }

    /** {@code POST /admin/tasks/retry}. */
    @Schema(name = "BulkRetryRequest")
    record BulkRetryRequest(String kind, UUID team,
            @Schema(description = "ISO-8601 duration back from now (PT1H) or instant") String olderThan,
            @Schema(minimum = "1", maximum = "500") Integer limit,
            @Schema(enumeration = "FAILED") String status) {
    }

    /** {@code PUT /admin/teams/{teamId}/limits}: null clears the cap. */
    @Schema(name = "TeamCapRequest", requiredProperties = "maxRunning")
    record TeamCapRequest(@Schema(minimum = "1", maximum = "1000", nullable = true) Integer maxRunning) {
    }

    /** {@code PUT /admin/teams/{teamId}/limits/{kind}}: null clears the rate limit. */
    @Schema(name = "RateLimitRequest", requiredProperties = "perMinute")
    record RateLimitRequest(@Schema(minimum = "1", maximum = "100000", nullable = true) Integer perMinute) {
    }
}
