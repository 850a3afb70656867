package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.TooManyRequestsException;
import com.teamdesk.tasks.task.ledger.TaskReads.Versioned;
import com.teamdesk.tasks.task.ledger.TaskReads;
import com.teamdesk.tasks.task.live.LiveFanOut;
import com.teamdesk.tasks.task.service.TaskService;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.team.Role;
import com.teamdesk.tasks.team.TeamAccess;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The live event streams of the API (issue 14): {@code GET /tasks/{id}/events} and
 * {@code GET /teams/{teamId}/tasks/events}, as Server-Sent Events ({@link EventStream}). The fan-out of
 * committed changes, the caps and the watch are the engine's ({@link LiveFanOut}, in {@code task/live});
 * this class opens a stream (authorization as {@code GET}, {@code Last-Event-ID}, the first state) and gives
 * its streams what they need of the web layer: the pool their writes drain on, the task's JSON
 * ({@link TaskJson}), the caller's current role, and the watch's bounds (R38):
 * {@code teamdesk.events.slow-reader-ms} (5 s: a write blocked that long cuts the stream),
 * {@code teamdesk.events.max-queued-bytes} (1 MiB waiting for the socket) and
 * {@code teamdesk.events.max-pending} (1000 events not yet written).
 *
 * <ul>
 * <li>Event {@code task}: data = the Task JSON of the API, {@code id} = the row's change sequence. A stream
 * never sends an older state of a task after a newer one.</li>
 * <li>Authorization: as {@code GET} when opened (404/403); re-checked before each batch of events, so a
 * member demoted to customer stops receiving other members' tasks, and a single-task stream whose task
 * became invisible ends.</li>
 * <li>{@code Last-Event-ID}: the single-task stream sends the current state when it changed after that id
 * (always when no id is given); the team stream sends every visible task changed after it (at most
 * {@value LiveFanOut#REPLAY_LIMIT}).</li>
 * </ul>
 */
@ApplicationScoped
public class TaskStreams implements EventStream.Owner {
    private static final Logger LOG = Logger.getLogger(TaskStreams.class.getName());

    @Inject
    LiveFanOut fanOut;

    @Inject
    TaskReads reads;

    @Inject
    TaskService tasks;

    @Inject
    TeamAccess access;

    @Inject
    ApiLinks links;

    @Resource
    ManagedThreadFactory threadFactory;

    @Inject
    @ConfigProperty(name = "teamdesk.events.slow-reader-ms", defaultValue = "5000")
    long slowReaderMs;

    @Inject
    @ConfigProperty(name = "teamdesk.events.max-pending", defaultValue = "1000")
    int maxPending;

    @Inject
    @ConfigProperty(name = "teamdesk.events.max-queued-bytes", defaultValue = "1048576")
    long maxQueuedBytes;

    private final Jsonb jsonb = JsonbBuilder.create();
    private ThreadPoolExecutor senders;

    @PostConstruct
    void start() {
        senders = new ThreadPoolExecutor(8, 8, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threadFactory);
        senders.allowCoreThreadTimeOut(true);
    }

    @PreDestroy
    void stop() {
        senders.shutdown();
        try {
            senders.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            jsonb.close();
        } catch (Exception e) {
            LOG.log(Level.FINE, "jsonb close", e);
        }
    }

    /**
     * Opens the stream of one task. Sends its current state first (or, with {@code Last-Event-ID}, only
     * when it changed since); ends after a final state (COMPLETED, FAILED).
     *
     * @param connection the client's connection as the engine holds it ({@link GrizzlyBridge#connectionOf})
     * @throws com.teamdesk.tasks.common.NotFoundException not visible to the caller (as GET)
     * @throws TooManyRequestsException                    the caller's or the server's cap is reached
     */
    public void openTask(UUID callerId, UUID taskId, String lastEventId, SseEventSink sink, Sse sse,
            GrizzlyBridge.ClientConnection connection) {
        tasks.get(callerId, taskId);
        long after = lastEventId(lastEventId);
        EventStream s = register(new EventStream(callerId, null, taskId, sink, sse, connection, this));
        // Registered first, read second: a change committed in between is either in this read or queued.
        Optional<Versioned> now = reads.findVersioned(taskId);
        if (now.isEmpty()) {
            s.offer(EventStream.CLOSE);
            return;
        }
        if (now.get().seq() > after) {
            s.offer(now.get());
        } else if (EventStream.isFinal(now.get().task())) {
            s.offer(EventStream.CLOSE);
        }
    }

    /**
     * Opens the stream of a team's tasks the caller may see. With {@code Last-Event-ID}, first sends the
     * visible tasks changed since (oldest change first).
     *
     * @param connection as for {@link #openTask}
     * @throws com.teamdesk.tasks.common.NotFoundException caller not a member of the team
     * @throws TooManyRequestsException                    the caller's or the server's cap is reached
     */
    public void openTeam(UUID callerId, UUID teamId, String lastEventId, SseEventSink sink, Sse sse,
            GrizzlyBridge.ClientConnection connection) {
        Role role = access.requireMember(teamId, callerId);
        long after = lastEventId(lastEventId);
        EventStream s = register(new EventStream(callerId, teamId, null, sink, sse, connection, this));
        if (lastEventId != null && !lastEventId.isBlank()) {
            reads.changedSince(teamId, role.isStaff() ? null : callerId, after, LiveFanOut.REPLAY_LIMIT).forEach(s::offer);
        }
    }

    private static long lastEventId(String header) {
        if (header == null || header.isBlank()) {
            return -1;
        }
        Long id = com.teamdesk.tasks.common.ClientValues.longOf(header);
        if (id == null) {
            throw new InvalidInputException("events.last_event_id", "Last-Event-ID must be an id this API sent.");
        }
        return id;
    }

    private EventStream register(EventStream s) {
        fanOut.register(s);
        s.listenForClose();
        return s;
    }

    @Override
    public void ended(EventStream s, EventStream.End why) {
        fanOut.ended(s, why.name());
    }

    @Override
    public Executor senders() {
        return senders;
    }

    @Override
    public Optional<Role> roleOf(UUID teamId, UUID user) {
        return access.roleOf(teamId, user);
    }

    @Override
    public String json(BackgroundTask task) {
        return jsonb.toJson(TaskJson.of(task, links));
    }

    @Override
    public int maxPending() {
        return maxPending;
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public long probeNanos() {
        return TimeUnit.MILLISECONDS.toNanos(fanOut.probeMs());
    }

    @Override
    public long slowReaderNanos() {
        return TimeUnit.MILLISECONDS.toNanos(slowReaderMs);
    }

    @Override
    public long maxQueuedBytes() {
        return maxQueuedBytes;
    }
}
