package com.teamdesk.tasks.task.export;

import com.teamdesk.tasks.common.ConflictException;
import com.teamdesk.tasks.common.ForbiddenException;
import com.teamdesk.tasks.common.GoneException;
import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.Caller;
import com.teamdesk.tasks.task.spi.Execution;
import com.teamdesk.tasks.task.spi.NewTaskRequest;
import com.teamdesk.tasks.task.spi.RequestField;
import com.teamdesk.tasks.task.spi.TaskKind;
import com.teamdesk.tasks.task.spi.TaskKindHandler;
import com.teamdesk.tasks.task.spi.TaskRejected;
import com.teamdesk.tasks.task.spi.TaskResult;
import com.teamdesk.tasks.task.spi.TaskScope;
import com.teamdesk.tasks.task.spi.TaskStatus;
import com.teamdesk.tasks.team.TeamDirectory;
import com.teamdesk.tasks.team.TicketFilter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The EXPORT kind (R13): a CSV of the team's tickets matching {@code filters}. Request
 * {@code {kind, scope?, filters?, timeZone?, runAt?}}; the parameters are the validated
 * {@link TicketFilter} with its time zone. A customer may only export what they see
 * ({@code SELF}); {@code TEAM} is for staff and owners (R15). Runs in {@link ExportRunner}.
 */
@ApplicationScoped
public class ExportHandler implements TaskKindHandler<TicketFilter> {

    @Inject
    ExportRunner runner;

    @Inject
    @ConfigProperty(name = "teamdesk.task.export.timeout-ms", defaultValue = "600000")
    long timeoutMs;

    @Inject
    ExportResultStore store;

    @Inject
    TeamDirectory teams;

    @Inject
    Clock clock;

    /** The file name's time: when the export completed, in UTC. */
    private static final DateTimeFormatter FILE_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmm").withZone(ZoneOffset.UTC);

    /** This kind: CSV export of a team's tickets (R13). */
    public static final TaskKind KIND = TaskKind.of("EXPORT");

    @Override
    public TaskKind kind() {
        return KIND;
    }

    @Override
    public List<RequestField> requestFields() {
        return List.of(RequestField.text("scope").withSchema("""
                        {"type": "string", "enum": ["SELF", "TEAM"], "default": "SELF", "description":
                         "SELF: the tickets the caller may see; TEAM: every ticket of the team (staff and owners)"}"""),
                RequestField.object("filters").withSchema("""
                        {"type": "object", "description": "Which tickets (all when absent)", "properties": {
                          "status": {"type": "array", "items": {"type": "string", "enum": ["OPEN", "PENDING", "CLOSED"]}},
                          "assigneeId": {"type": "string", "format": "uuid"},
                          "createdFrom": {"type": "string",
                            "description": "A date (2026-11-01, in timeZone) or an ISO-8601 date-time with offset"},
                          "createdTo": {"type": "string", "description": "As createdFrom; a date includes its whole day"},
                          "q": {"type": "string", "maxLength": 200, "description": "Text in the title or body"}}}"""),
                RequestField.text("timeZone").withSchema("""
                        {"type": "string", "default": "UTC", "example": "Asia/Shanghai",
                         "description": "IANA zone or offset the CSV's times and the filters' dates are in"}"""));
    }

    /**
     * @throws InvalidInputException ({@code task.invalid}) a bad scope; ({@code filters.invalid}) bad
     *                               filters or time zone
     * @throws ForbiddenException    ({@code task.scope_forbidden}) a TEAM-scope export by a customer
     */
    @Override
    public Accepted<TicketFilter> accept(NewTaskRequest request, Caller caller) {
        TaskScope scope = NewTaskRequest.enumValue(TaskScope.class, request.text("scope"), "scope", TaskScope.SELF);
        if (scope == TaskScope.TEAM && !caller.role().isStaff()) {
            throw new ForbiddenException("task.scope_forbidden", "Only staff and owners may export the whole team.");
        }
        return new Accepted<>(scope, TicketFilter.fromJson(request.object("filters"), request.text("timeZone")));
    }

    @Override
    public String store(TicketFilter params) {
        return params.toJson();
    }

    /** @throws TaskRejected ({@code INVALID_FILTERS}: "the export filters are not valid") */
    @Override
    public TicketFilter load(String stored) {
        return TaskRejected.unlessInvalid(ExportRejection.INVALID_FILTERS, () -> TicketFilter.fromStoredJson(stored));
    }

    @Override
    public void run(Execution execution, TicketFilter params) throws Exception {
        runner.run(execution);
    }

    /** @return {@code teamdesk.task.export.timeout-ms} (default 10 min, R26) */
    @Override
    public Duration runTimeout() {
        return Duration.ofMillis(timeoutMs);
    }

    /** @return true: a completed export offers its CSV for 24 h (R13) */
    @Override
    public boolean offersFile() {
        return true;
    }

    /** R13: the CSVs past their 24 h, then the chunks no result and no running execution owns. */
    @Override
    public int purgeExpired(Instant now, int limit) {
        return store.purgeExpiredResults(now, limit) + store.purgeOrphanChunks(limit);
    }

    /**
     * The CSV of a completed export (R13), read chunk by chunk from {@link ExportResultStore}; named
     * {@code teamdesk-export-<team slug>-<completed, yyyyMMdd-HHmm UTC>-<task id>.csv}.
     *
     * @throws ConflictException ({@code task.not_completed}) not COMPLETED
     * @throws GoneException     ({@code export.expired}) the 24 h are over and the CSV is gone
     */
    @Override
    public TaskResult result(BackgroundTask task) {
        if (task.status() != TaskStatus.COMPLETED) {
            throw new ConflictException("task.not_completed", "The export has no file yet (status " + task.status() + ").");
        }
        if (task.expiresAt() != null && !clock.instant().isBefore(task.expiresAt())) {
            throw new GoneException("export.expired", "The export's file expired at " + task.expiresAt() + ".");
        }
        ExportResultStore.StoredResult csv = store.storedResult(task.id()).orElseThrow(
                () -> new GoneException("export.expired", "The export's file is no longer available."));
        String slug = teams.slugOf(task.teamId()).orElse("team");
        return new TaskResult("teamdesk-export-" + slug + "-" + FILE_TIME.format(task.updatedAt()) + "-" + task.id() + ".csv",
                csv.size(), csv.sha256(), out -> store.writeResult(csv, out));
    }
}
