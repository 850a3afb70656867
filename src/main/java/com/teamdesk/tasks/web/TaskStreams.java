package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.TooManyRequestsException;
import com.teamdesk.tasks.task.BackgroundTask;
import com.teamdesk.tasks.task.TaskReads;
import com.teamdesk.tasks.task.TaskReads.Versioned;
import com.teamdesk.tasks.task.TaskMetrics;
import com.teamdesk.tasks.task.TaskService;
import com.teamdesk.tasks.task.live.LiveInterest;
import com.teamdesk.tasks.task.live.TaskChangeListener;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The live event streams of this server (issue 14): {@code GET /tasks/{id}/events} and
 * {@code GET /teams/{teamId}/tasks/events}. Changes come from {@link TaskChangeListener} (committed
 * ledger changes, every instance's); each stream ({@link EventStream}) has its own queue, drained in order
 * on a small pool, so a slow client never holds up the listener or other streams.
 *
 * <ul>
 * <li>Event {@code task}: data = the Task JSON of the API ({@link TaskJson}), {@code id} = the row's
 * change sequence. A stream never sends an older state of a task after a newer one (the sequence
 * orders one task's writes by commit).</li>
 * <li>Authorization: as {@code GET} when opened (404/403); re-checked before each batch of events, so
 * a member demoted to customer stops receiving other members' tasks, and a single-task stream whose
 * task became invisible ends.</li>
 * <li>{@code Last-Event-ID}: the single-task stream sends the current state when it changed after that
 * id (always when no id is given); the team stream sends every visible task changed after it (at most
 * {@value #REPLAY_LIMIT}).</li>
 * <li>Bounds ({@link StreamSlots}): per user and per server (429 {@code events.too_many_streams} with
 * {@code Retry-After}).</li>
 * <li>The watch (issue 34), every {@code teamdesk.events.probe-ms} (500): a stream with nothing written
 * for that long gets a probe (an SSE comment); the container notices a client that went away only when a
 * write to it fails, and the write after a client's close is the first or the second, so its slot is
 * free within about three probe periods (1.5 s). A client that keeps the connection and does not read (a
 * slow reader) is cut — slot given back, connection closed — when the bytes waiting for its socket pass
 * {@code teamdesk.events.max-queued-bytes} (1 MiB; the engine would queue them without bound), its events
 * not yet written pass {@code teamdesk.events.max-pending} (1000), or a write to it blocks for
 * {@code teamdesk.events.slow-reader-ms} (5 s). The probes also keep proxies
 * from closing an idle stream.</li>
 * </ul>
 */
@ApplicationScoped
public class TaskStreams implements EventStream.Owner {
    private static final Logger LOG = Logger.getLogger(TaskStreams.class.getName());
    /** Most tasks one reconnect of a team stream replays. */
    public static final int REPLAY_LIMIT = 500;
    /** {@code Retry-After} (seconds) when this server's cap is reached. */
    static final int SERVER_RETRY_AFTER_SECONDS = 5;

    @Inject
    TaskChangeListener changes;

    @Inject
    LiveInterest interest;

    @Inject
    TaskReads reads;

    @Inject
    TaskService tasks;

    @Inject
    TeamAccess access;

    @Inject
    ApiLinks links;

    @Inject
    TaskMetrics metrics;

    @Resource
    ManagedThreadFactory threadFactory;

    @Inject
    @ConfigProperty(name = "teamdesk.events.max-streams", defaultValue = "1000")
    int maxStreams;

    @Inject
    @ConfigProperty(name = "teamdesk.events.max-streams-per-user", defaultValue = "10")
    int maxPerUser;

    @Inject
    @ConfigProperty(name = "teamdesk.events.probe-ms", defaultValue = "500")
    long probeMs;

    @Inject
    @ConfigProperty(name = "teamdesk.events.slow-reader-ms", defaultValue = "5000")
    long slowReaderMs;

    @Inject
    @ConfigProperty(name = "teamdesk.events.max-pending", defaultValue = "1000")
    int maxPending;

    @Inject
    @ConfigProperty(name = "teamdesk.events.max-queued-bytes", defaultValue = "1048576")
    long maxQueuedBytes;

    private final Map<EventStream, Boolean> streams = new ConcurrentHashMap<>();
    private final Jsonb jsonb = JsonbBuilder.create();
    private StreamSlots slots;
    private ThreadPoolExecutor senders;
    private ScheduledExecutorService watch;

    @PostConstruct
    void start() {
        probeMs = Math.max(50, probeMs);
        // A closed client is noticed by the first or second probe after it left, the first coming within one period.
        int userRetryAfter = (int) Math.max(1, (3 * probeMs + 999) / 1000);
        slots = new StreamSlots(maxStreams, maxPerUser, userRetryAfter, SERVER_RETRY_AFTER_SECONDS);
        senders = new ThreadPoolExecutor(8, 8, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threadFactory);
        senders.allowCoreThreadTimeOut(true);
        watch = Executors.newSingleThreadScheduledExecutor(threadFactory);
        watch.scheduleWithFixedDelay(this::watch, probeMs, probeMs, TimeUnit.MILLISECONDS);
        changes.subscribe(this::onChange);
        changes.onResync(this::resyncAll);
        interest.onRegistered(this::resyncAll);
    }

    @PreDestroy
    void stop() {
        watch.shutdownNow();
        streams.keySet().forEach(s -> s.end(EventStream.End.SERVER_STOP));
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

    /** @return the number of open event streams on this server */
    public int openStreams() {
        return slots.open();
    }

    /**
     * @return this server's streams for operators: {@code open}, the caps, and the users with open streams
     *         (most first)
     */
    public StreamsView view() {
        List<StreamsView.UserStreams> users = new ArrayList<>();
        slots.byUser().forEach((u, n) -> users.add(new StreamsView.UserStreams(u, n)));
        return new StreamsView(slots.open(), slots.perServer(), slots.perUser(), probeMs, users);
    }

    /**
     * This server's open event streams (operators, {@code GET /api/v1/admin/streams}).
     *
     * @param open         streams open on this server
     * @param limit        this server's cap
     * @param perUserLimit one user's cap
     * @param probeMs      the watch's period (ms): a closed client's slot is free within about three times that
     * @param users        users with open streams and their count, most first
     */
    public record StreamsView(int open, int limit, int perUserLimit, long probeMs, List<UserStreams> users) {
        /** One user's open streams on this server. */
        public record UserStreams(UUID userId, int open) {
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
            reads.changedSince(teamId, role.isStaff() ? null : callerId, after, REPLAY_LIMIT).forEach(s::offer);
        }
    }

    private static long lastEventId(String header) {
        if (header == null || header.isBlank()) {
            return -1;
        }
        try {
            return Long.parseLong(header.trim());
        } catch (NumberFormatException e) {
            throw new InvalidInputException("events.last_event_id", "Last-Event-ID must be an id this API sent.");
        }
    }

    private EventStream register(EventStream s) {
        slots.acquire(s.user);
        streams.put(s, Boolean.TRUE);
        metrics.streams(1);
        // Before the stream reads its first state: the ledger notifies only while some instance listens.
        interest.acquire();
        return s;
    }

    @Override
    public void ended(EventStream s, EventStream.End why) {
        streams.remove(s);
        slots.release(s.user);
        metrics.streams(-1);
        metrics.streamEnded(why.name().toLowerCase(Locale.ROOT));
        try {
            interest.release();
        } catch (RuntimeException e) { // the bean may already be gone while the server stops
            LOG.log(Level.FINE, "task.live interest release", e);
        }
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

    /** Called on the listener's thread for every committed change: only queues. */
    void onChange(Versioned change) {
        BackgroundTask t = change.task();
        for (EventStream s : streams.keySet()) {
            if (s.follows(t)) {
                s.offer(change);
            }
        }
    }

    /** After the listening connection was lost: every stream reads what it may have missed. */
    void resyncAll() {
        for (EventStream s : streams.keySet()) {
            try {
                if (s.taskId != null) {
                    reads.findVersioned(s.taskId).ifPresent(s::offer);
                } else {
                    reads.changedSince(s.teamId, null, s.highestSeq(), REPLAY_LIMIT).forEach(s::offer);
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "task.live resync of a stream failed: " + e);
            }
        }
    }

    /** One pass of the watch: gone clients, slow readers, probes. Never throws (the schedule would stop). */
    private void watch() {
        try {
            long now = nanoTime();
            long probe = TimeUnit.MILLISECONDS.toNanos(probeMs);
            long slow = TimeUnit.MILLISECONDS.toNanos(slowReaderMs);
            for (EventStream s : streams.keySet()) {
                long writing = s.writingSince();
                if (s.sinkClosed()) {
                    s.end(EventStream.End.CLIENT_GONE);
                } else if (writing != 0 && now - writing > slow) {
                    s.cut("a write blocked for " + TimeUnit.NANOSECONDS.toMillis(now - writing) + " ms");
                } else if (s.queuedBytes() > maxQueuedBytes) {
                    s.cut(s.queuedBytes() + " bytes wait for its socket");
                } else if (writing == 0 && s.backlog() == 0 && now - s.lastWrite() >= probe / 2) {
                    // Half a period: the last probe's write came a little after the last pass, and still counts as
                    // one period ago.
                    s.offer(EventStream.PROBE);
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "event stream watch failed: " + e);
        }
    }

    /** @return the open streams' count per user (operators; tests) */
    public Map<UUID, Integer> streamsPerUser() {
        return slots.byUser();
    }
}
