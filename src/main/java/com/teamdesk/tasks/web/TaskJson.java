package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.Jsons;
import com.teamdesk.tasks.task.fairshare.TeamQueueLimits;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.task.spi.TaskStatus;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.bind.annotation.JsonbNillable;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import java.io.StringReader;
import java.net.URI;
import java.time.Instant;
import java.util.UUID;

/**
 * A task as the API shows it (API.md "Task body"): never the CSV, never the lease
 * ({@code executionId}). {@code run} is 0-based; {@code displayRun} = run + 1 is what people see.
 *
 * @param filters the kind's validated parameters ({@link BackgroundTask#params}) as a JSON object
 *                (export filters with timeZone, or the reminder's ticketId, message and
 *                recipients); the API keeps the name {@code filters} for every kind
 * @param runAt       not before this instant (R24); later than {@code createdAt} for a scheduled task
 * @param waitingReason issue 30: why a due WAITING task has not started, in words for the member (its team at its
 *                    cap, over its rate limit, behind its team's other tasks), else null
 * @param waitingUntil  issue 30: when a rate-limited task may start (the minute's end), else null
 * @param cancelledAt when a member cancelled the current run (R23), else null
 * @param cancelledBy who cancelled it, else null
 * @param scheduleId  issue 31: the schedule this task is an occurrence of, else null
 * @param slotAt      issue 31: the schedule's slot it runs for, else null (not an occurrence, or a "run now")
 * @param batchId     issue 52: the batch it is a child of, else null
 * @param completesBatch issue 52: the batch it is the completion of, else null
 * @param waitsFor    issue 52 (R53): how many tasks it still waits for before it is dispatched
 * @param links   {@code self} always; {@code result} for a COMPLETED task of a kind that offers a
 *                file (the export) whose file has not
 *                expired; {@code retry} when FAILED or CANCELLED; {@code cancel} when WAITING or RUNNING;
 *                {@code schedule} for an occurrence of a schedule; {@code executions} always (R43)
 */
@JsonbNillable
@JsonbPropertyOrder({"id", "kind", "teamId", "ownerId", "scope", "filters", "status", "run", "displayRun", "attempts",
        "progress", "lastError", "resultSummary", "expiresAt", "runAt", "waitingReason", "waitingUntil", "cancelledAt", "cancelledBy", "scheduleId",
        "slotAt", "batchId", "completesBatch", "waitsFor", "createdAt", "updatedAt", "links"})
@org.eclipse.microprofile.openapi.annotations.media.Schema(name = "Task")
public record TaskJson(UUID id, String kind, UUID teamId, UUID ownerId, TaskScope scope, JsonObject filters,
        TaskStatus status, int run, int displayRun, int attempts, int progress, String lastError,
        String resultSummary, Instant expiresAt, Instant runAt, String waitingReason, Instant waitingUntil, Instant cancelledAt,
        UUID cancelledBy, UUID scheduleId, Instant slotAt, UUID batchId, UUID completesBatch, int waitsFor,
        Instant createdAt, Instant updatedAt, Links links) {

    /** The waiting reason of a task whose team runs as many tasks as an operator's cap allows (issue 30). */
    public static final String TEAM_AT_CAP = "Your team is running as many tasks at once as its limit allows;"
            + " this one starts when one of them ends.";

    /** The waiting reason of a task over its team's rate limit (issue 30): the kind, the limit, the next start. */
    public static final String RATE_LIMITED = "Rate limit: your team starts at most %d %s tasks a minute; the next may start"
            + " at %s.";

    /** The waiting reason of a task behind its team's other tasks (issue 30): how many are ahead. */
    public static final String BEHIND_TEAM = "Waiting behind %d of your team's other tasks: teams take turns for the"
            + " workers, and a team's own tasks start by priority, then in order.";

    /** @return the member's words for why a task of {@code kind} waits, or null when it does not */
    public static String reason(TeamQueueLimits.Waiting w, String kind) {
        if (w == null) {
            return null;
        }
        return switch (w.code()) {
            case TEAM_AT_CAP -> TEAM_AT_CAP;
            case RATE_LIMITED -> String.format(java.util.Locale.ROOT, RATE_LIMITED, w.limit(), kind, w.until());
            case BEHIND_TEAM -> String.format(java.util.Locale.ROOT, BEHIND_TEAM, w.ahead());
        };
    }

    /**
     * Hypermedia links of a task; absent ones are omitted.
     *
     * @param result the CSV download, only for a COMPLETED export
     * @param retry  the manual retry (R15), only when FAILED or CANCELLED
     * @param cancel the cancel (R23), only when WAITING or RUNNING
     * @param schedule the schedule of an occurrence (issue 31), while it exists
     * @param executions the task's execution history (R43), always
     * @param batch the batch it is a child or the completion of (issue 52)
     */
    @JsonbPropertyOrder({"self", "result", "retry", "cancel", "schedule", "executions", "batch"})
    @org.eclipse.microprofile.openapi.annotations.media.Schema(name = "TaskLinks")
    public record Links(URI self, URI result, URI retry, URI cancel, URI schedule, URI executions, URI batch) {
    }

    /** @return the JSON form of a ledger row, links built by {@link ApiLinks} (never from the Host header) */
    public static TaskJson of(BackgroundTask t, ApiLinks links) {
        URI self = links.task(t.id());
        boolean fileOffered = t.status() == TaskStatus.COMPLETED && links.offersFile(t.kind())
                && (t.expiresAt() == null || links.now().isBefore(t.expiresAt()));
        URI result = fileOffered ? links.api("tasks/" + t.id() + "/result") : null;
        boolean retryable = t.status() == TaskStatus.FAILED || t.status() == TaskStatus.CANCELLED;
        URI retry = retryable ? links.api("tasks/" + t.id() + "/retry") : null;
        boolean cancellable = t.status() == TaskStatus.WAITING || t.status() == TaskStatus.RUNNING;
        URI cancel = cancellable ? links.api("tasks/" + t.id() + "/cancel") : null;
        TeamQueueLimits.Waiting waiting = links.waiting(t);
        return new TaskJson(t.id(), t.kind().name(), t.teamId(), t.ownerId(), t.scope(), filters(t.params()), t.status(),
                t.run(), t.run() + 1, t.attempts(), t.progress(), t.lastError(), t.resultSummary(), t.expiresAt(),
                t.runAt(), reason(waiting, t.kind().name()), waiting == null ? null : waiting.until(), t.cancelledAt(),
                t.cancelledBy(), t.scheduleId(), t.slotAt(), t.batchId(), t.completesBatch(), t.waitsFor(), t.createdAt(),
                t.updatedAt(), new Links(self, result, retry, cancel,
                t.scheduleId() == null ? null : links.schedule(t.scheduleId()), links.api("tasks/" + t.id() + "/executions"),
                t.batchId() != null ? links.api("batches/" + t.batchId())
                        : t.completesBatch() != null ? links.api("batches/" + t.completesBatch()) : null));
    }

    /** @return a stored parameters JSON text as an object (empty when none); also a schedule's task (issue 31) */
    static JsonObject filters(String json) {
        if (json == null || json.isBlank()) {
            return JsonObject.EMPTY_JSON_OBJECT;
        }
        try (JsonReader r = Jsons.PROVIDER.createReader(new StringReader(json))) {
            return r.readObject();
        }
    }
}
