package com.teamdesk.tasks.web;

import com.teamdesk.tasks.task.schedule.Schedule;
import com.teamdesk.tasks.task.schedule.ScheduleService;
import com.teamdesk.tasks.task.schedule.ScheduleStore;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.task.spi.TaskStatus;
import jakarta.json.JsonObject;
import jakarta.json.bind.annotation.JsonbNillable;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import java.net.URI;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;

/**
 * A schedule as the API shows it (issue 31, docs/api.md "Schedules"): a team's recurring task.
 *
 * @param task        what each occurrence is: its kind, its scope and the kind's validated parameters, named
 *                    {@code filters} as in a task's body
 * @param enabled     false while paused, or disabled by the system ({@code disabledReason})
 * @param disabledReason why the system or an operator stopped it (its ticket closed, its owner left the team,
 *                    "Paused by an operator."), else null; a member's pause has none
 * @param nextRuns    its next 5 slots, each in its zone and in UTC; empty while not enabled
 * @param lastSlotAt  the last slot it materialised or skipped, else null
 * @param occurrences its last 10 occurrences and skipped slots, newest first; only in the answer of
 *                    {@code GET /schedules/{id}}, else null
 * @param version     what a PATCH sends back in {@code If-Match} (also the {@code ETag})
 * @param links       {@code self}, {@code pause} (enabled) or {@code resume} (not), {@code runNow}
 */
@JsonbNillable
@JsonbPropertyOrder({"id", "teamId", "ownerId", "name", "cron", "timeZone", "task", "missedSlots", "overlap", "enabled",
        "disabledReason", "nextRuns", "lastSlotAt", "occurrences", "version", "createdBy", "createdAt", "updatedBy",
        "updatedAt", "links"})
@org.eclipse.microprofile.openapi.annotations.media.Schema(name = "Schedule")
public record ScheduleJson(UUID id, UUID teamId, UUID ownerId, String name, String cron, String timeZone, TaskSpec task,
        Schedule.MissedSlots missedSlots, Schedule.Overlap overlap, boolean enabled, String disabledReason,
        List<NextRun> nextRuns, Instant lastSlotAt, List<OccurrenceJson> occurrences, int version, UUID createdBy,
        Instant createdAt, UUID updatedBy, Instant updatedAt, Links links) {

    /**
     * The task each occurrence is.
     *
     * @param filters the kind's stored parameters, as {@link TaskJson#filters()}
     */
    @JsonbPropertyOrder({"kind", "scope", "filters"})
    @org.eclipse.microprofile.openapi.annotations.media.Schema(name = "ScheduleTask")
    public record TaskSpec(String kind, TaskScope scope, JsonObject filters) {
    }

    /**
     * A slot to come.
     *
     * @param at  in the schedule's zone, with that day's offset ({@code 2026-12-07T09:00:00+08:00})
     * @param utc the same instant in UTC
     */
    @JsonbPropertyOrder({"at", "utc"})
    @org.eclipse.microprofile.openapi.annotations.media.Schema(name = "NextRun")
    public record NextRun(OffsetDateTime at, Instant utc) {
    }

    /**
     * An occurrence (a task) or a skipped slot.
     *
     * @param slotAt  its slot; null for a "run now"
     * @param taskId  the task; null for a skipped slot
     * @param status  the task's status; null for a skipped slot
     * @param skipped {@code OVERLAP} or {@code MISSED} for a skipped slot, else null
     * @param detail  why it was skipped, in words, else null
     * @param at      when the task was created or the slot skipped
     * @param links   {@code task} for an occurrence
     */
    @JsonbNillable
    @JsonbPropertyOrder({"slotAt", "taskId", "status", "skipped", "detail", "at", "links"})
    @org.eclipse.microprofile.openapi.annotations.media.Schema(name = "Occurrence")
    public record OccurrenceJson(Instant slotAt, UUID taskId, TaskStatus status, String skipped, String detail,
            Instant at, OccurrenceLinks links) {
    }

    /** @param task the occurrence's task; omitted for a skipped slot */
    @org.eclipse.microprofile.openapi.annotations.media.Schema(name = "OccurrenceLinks")
    public record OccurrenceLinks(URI task) {
    }

    /** Hypermedia links of a schedule; absent ones are omitted. */
    @JsonbPropertyOrder({"self", "pause", "resume", "runNow"})
    @org.eclipse.microprofile.openapi.annotations.media.Schema(name = "ScheduleLinks")
    public record Links(URI self, URI pause, URI resume, URI runNow) {
    }

    /** @return a schedule as a list, a create or a change answers it: without its occurrences */
    public static ScheduleJson summary(ScheduleService.View v, ApiLinks links) {
        return of(v, null, links);
    }

    /** @return a schedule as {@code GET /schedules/{id}} answers it: with its last occurrences */
    public static ScheduleJson detail(ScheduleService.View v, ApiLinks links) {
        return of(v, v.occurrences().stream().map(o -> occurrence(o, links)).toList(), links);
    }

    private static ScheduleJson of(ScheduleService.View v, List<OccurrenceJson> occurrences, ApiLinks links) {
        Schedule s = v.schedule();
        ZoneId zone = zone(s.timeZone());
        List<NextRun> next = v.nextSlots().stream().map(at -> new NextRun(at.atZone(zone).toOffsetDateTime(), at)).toList();
        String base = "schedules/" + s.id();
        return new ScheduleJson(s.id(), s.teamId(), s.ownerId(), s.name(), s.cron(), s.timeZone(),
                new TaskSpec(s.kind().name(), s.scope(), TaskJson.filters(s.params())), s.missedSlots(), s.overlap(),
                s.enabled(), s.disabledReason(), next, s.lastSlotAt(), occurrences, s.version(), s.createdBy(),
                s.createdAt(), s.updatedBy(), s.updatedAt(), new Links(links.schedule(s.id()),
                        s.enabled() ? links.api(base + "/pause") : null, s.enabled() ? null : links.api(base + "/resume"),
                        links.api(base + "/run-now")));
    }

    private static OccurrenceJson occurrence(ScheduleStore.Occurrence o, ApiLinks links) {
        return new OccurrenceJson(o.slotAt(), o.taskId(), o.status(), o.skipped(), o.detail(), o.at(),
                new OccurrenceLinks(o.taskId() == null ? null : links.task(o.taskId())));
    }

    /** The stored zone; UTC for one this JVM's rules no longer know (the sweep disables such a schedule). */
    private static ZoneId zone(String id) {
        try {
            return ZoneId.of(id);
        } catch (DateTimeException e) {
            return ZoneOffset.UTC;
        }
    }
}
