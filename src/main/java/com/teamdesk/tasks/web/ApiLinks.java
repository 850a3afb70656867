package com.teamdesk.tasks.web;

import com.teamdesk.tasks.task.engine.TaskKinds;
import com.teamdesk.tasks.task.fairshare.TeamQueueLimits;
import com.teamdesk.tasks.task.spi.TaskJobId;
import com.teamdesk.tasks.task.spi.TaskKind;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.UUID;

/**
 * Builds {@code Location} headers and {@code links.*}: from {@code teamdesk.public-base-url} when it
 * is set, else relative to the server ({@code /api/v1/tasks/…}). Never from the request's
 * {@code Host} header, which the client controls ({@code Host: evil.example} must not produce
 * links to that host).
 */
@ApplicationScoped
public class ApiLinks {
    /** Path of the API under the server root. */
    public static final String API = "/api/v1/";

    @Inject
    HttpLimits limits;

    @Inject
    Clock clock;

    @Inject
    TaskKinds kinds;

    @Inject
    TeamQueueLimits teamLimits;

    /** @return the URI of an API path such as {@code tasks/<id>}: absolute from the public base URL, or relative */
    public URI api(String path) {
        String relative = API + path;
        return limits.publicBaseUrl().map(base -> URI.create(base + relative)).orElse(URI.create(relative));
    }

    /** @return the task's URI ({@code Location} of a created task, {@code links.self}) */
    public URI task(UUID taskId) {
        return api("tasks/" + taskId);
    }

    /** @return the schedule's URI ({@code Location} of a created schedule, {@code links.self}; issue 31) */
    public URI schedule(UUID scheduleId) {
        return api("schedules/" + scheduleId);
    }

    /** @return the ticket's URI ({@code Location} of a created ticket) */
    public URI ticket(UUID teamId, UUID ticketId) {
        return api("teams/" + teamId + "/tickets/" + ticketId);
    }

    /** @return now, from the application clock (decides whether an export's file is still offered) */
    public Instant now() {
        return clock.instant();
    }

    /** @return true when a COMPLETED task of {@code kind} offers a file ({@code links.result}) */
    public boolean offersFile(TaskKind kind) {
        return kinds.handler(kind).offersFile();
    }

    /**
     * Issue 30: why a WAITING task that is due has not started (its team at its cap, over its rate limit, or behind
     * its team's other tasks); else null (it waits for a free slot, or is scheduled: {@code runAt} says when).
     */
    public TeamQueueLimits.Waiting waiting(com.teamdesk.tasks.task.spi.BackgroundTask t) {
        if (t.status() != com.teamdesk.tasks.task.spi.TaskStatus.WAITING || t.runAt().isAfter(now())) {
            return null;
        }
        return teamLimits.waiting(t.teamId(), t.kind(), new TaskJobId(t.id(), t.run()));
    }
}
