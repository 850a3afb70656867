package com.teamdesk.tasks.web;

import com.teamdesk.tasks.common.InvalidInputException;
import com.teamdesk.tasks.common.TooManyRequestsException;
import com.teamdesk.tasks.task.BackgroundTask;
import com.teamdesk.tasks.task.JdbcTaskLedger;
import com.teamdesk.tasks.task.JdbcTaskLedger.Versioned;
import com.teamdesk.tasks.task.TaskMetrics;
import com.teamdesk.tasks.task.TaskService;
import com.teamdesk.tasks.task.TaskStatus;
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
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The live event streams of this server (issue 14): {@code GET /tasks/{id}/events} and
 * {@code GET /teams/{teamId}/tasks/events}. Changes come from {@link TaskChangeListener} (committed
 * ledger changes, every instance's); each stream has its own queue, drained in order on a small pool,
 * so a slow client never holds up the listener or other streams.
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
 * <li>Bounds: per user and per server (429 {@code events.too_many_streams}); a queue over its limit
 * (a client not reading) ends the stream; a comment every keep-alive interval (15 s) keeps proxies from
 * closing it and detects clients that went away (their streams are released).</li>
 * </ul>
 */
@ApplicationScoped
public class TaskStreams {
    private static final Logger LOG = Logger.getLogger(TaskStreams.class.getName());
    /** Most tasks one reconnect of a team stream replays. */
    public static final int REPLAY_LIMIT = 500;
    private static final Object KEEP_ALIVE = new Object();
    private static final Object CLOSE = new Object();

    @Inject
    TaskChangeListener changes;

    @Inject
    LiveInterest interest;

    @Inject
    JdbcTaskLedger ledger;

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
    @ConfigProperty(name = "teamdesk.events.keep-alive-ms", defaultValue = "15000")
    long keepAliveMs;

    @Inject
    @ConfigProperty(name = "teamdesk.events.max-pending", defaultValue = "1000")
    int maxPending;

    private final Map<Stream, Boolean> streams = new ConcurrentHashMap<>();
    private final Map<UUID, AtomicInteger> perUser = new ConcurrentHashMap<>();
    private final AtomicInteger open = new AtomicInteger();
    private final Jsonb jsonb = JsonbBuilder.create();
    private ThreadPoolExecutor senders;
    private ScheduledExecutorService ticker;

    @PostConstruct
    void start() {
        senders = new ThreadPoolExecutor(8, 8, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threadFactory);
        senders.allowCoreThreadTimeOut(true);
        ticker = Executors.newSingleThreadScheduledExecutor(threadFactory);
        ticker.scheduleWithFixedDelay(this::keepAlive, keepAliveMs, keepAliveMs, TimeUnit.MILLISECONDS);
        changes.subscribe(this::onChange);
        changes.onResync(this::resyncAll);
        interest.onRegistered(this::resyncAll);
    }

    @PreDestroy
    void stop() {
        ticker.shutdownNow();
        streams.keySet().forEach(s -> s.offer(CLOSE));
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
        return open.get();
    }

    /**
     * Opens the stream of one task. Sends its current state first (or, with {@code Last-Event-ID}, only
     * when it changed since); ends after a final state (COMPLETED, FAILED).
     *
     * @throws com.teamdesk.tasks.common.NotFoundException not visible to the caller (as GET)
     * @throws TooManyRequestsException                    the caller's or the server's cap is reached
     */
    public void openTask(UUID callerId, UUID taskId, String lastEventId, SseEventSink sink, Sse sse) {
        tasks.get(callerId, taskId);
        long after = lastEventId(lastEventId);
        Stream s = register(new Stream(callerId, null, taskId, sink, sse));
        // Registered first, read second: a change committed in between is either in this read or queued.
        Optional<Versioned> now = ledger.findVersioned(taskId);
        if (now.isEmpty()) {
            s.offer(CLOSE);
            return;
        }
        if (now.get().seq() > after) {
            s.offer(now.get());
        } else if (isFinal(now.get().task())) {
            s.offer(CLOSE);
        }
    }

    /**
     * Opens the stream of a team's tasks the caller may see. With {@code Last-Event-ID}, first sends the
     * visible tasks changed since (oldest change first).
     *
     * @throws com.teamdesk.tasks.common.NotFoundException caller not a member of the team
     * @throws TooManyRequestsException                    the caller's or the server's cap is reached
     */
    public void openTeam(UUID callerId, UUID teamId, String lastEventId, SseEventSink sink, Sse sse) {
        Role role = access.requireMember(teamId, callerId);
        long after = lastEventId(lastEventId);
        Stream s = register(new Stream(callerId, teamId, null, sink, sse));
        if (lastEventId != null && !lastEventId.isBlank()) {
            ledger.changedSince(teamId, role.isStaff() ? null : callerId, after, REPLAY_LIMIT).forEach(s::offer);
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

    private Stream register(Stream s) {
        AtomicInteger mine = perUser.computeIfAbsent(s.user, u -> new AtomicInteger());
        if (open.incrementAndGet() > maxStreams) {
            open.decrementAndGet();
            throw new TooManyRequestsException("events.too_many_streams",
                    "This server has too many open event streams; try again later.");
        }
        if (mine.incrementAndGet() > maxPerUser) {
            mine.decrementAndGet();
            open.decrementAndGet();
            throw new TooManyRequestsException("events.too_many_streams",
                    "You have " + maxPerUser + " event streams open; close one first.");
        }
        streams.put(s, Boolean.TRUE);
        metrics.streams(1);
        // Before the stream reads its first state: the ledger notifies only while some instance listens.
        interest.acquire();
        return s;
    }

    private void release(Stream s) {
        if (s.released.compareAndSet(false, true)) {
            streams.remove(s);
            open.decrementAndGet();
            metrics.streams(-1);
            try {
                interest.release();
            } catch (RuntimeException e) { // the bean may already be gone while the server stops
                LOG.log(Level.FINE, "task.live interest release", e);
            }
            AtomicInteger mine = perUser.get(s.user);
            if (mine != null) {
                mine.decrementAndGet();
            }
            try {
                s.sink.close();
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "event stream close", e);
            }
        }
    }

    /** Called on the listener's thread for every committed change: only queues. */
    void onChange(Versioned change) {
        BackgroundTask t = change.task();
        for (Stream s : streams.keySet()) {
            if (s.taskId != null ? s.taskId.equals(t.id()) : s.teamId.equals(t.teamId())) {
                s.offer(change);
            }
        }
    }

    /** After the listening connection was lost: every stream reads what it may have missed. */
    void resyncAll() {
        for (Stream s : streams.keySet()) {
            try {
                if (s.taskId != null) {
                    ledger.findVersioned(s.taskId).ifPresent(s::offer);
                } else {
                    ledger.changedSince(s.teamId, null, s.highestSeq(), REPLAY_LIMIT).forEach(s::offer);
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "task.live resync of a stream failed: " + e);
            }
        }
    }

    private void keepAlive() {
        try {
            for (Stream s : streams.keySet()) {
                if (s.sink.isClosed()) {
                    release(s);
                } else {
                    s.offer(KEEP_ALIVE);
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "event stream keep-alive failed: " + e);
        }
    }

    private static boolean isFinal(BackgroundTask t) {
        return t.status() == TaskStatus.COMPLETED || t.status() == TaskStatus.FAILED;
    }

    /** One open stream: its filter, its queue of pending items, and what it already sent. */
    private final class Stream {
        final UUID user;
        final UUID teamId;
        final UUID taskId;
        final SseEventSink sink;
        final Sse sse;
        final Queue<Object> pending = new ConcurrentLinkedQueue<>();
        final AtomicInteger size = new AtomicInteger();
        final AtomicBoolean draining = new AtomicBoolean();
        final AtomicBoolean released = new AtomicBoolean();
        /** Last sequence sent per task (bounded: the oldest entries are forgotten). */
        final Map<UUID, Long> sent = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<UUID, Long> eldest) {
                return size() > 10_000;
            }
        };
        volatile long highest = -1;

        Stream(UUID user, UUID teamId, UUID taskId, SseEventSink sink, Sse sse) {
            this.user = user;
            this.teamId = teamId;
            this.taskId = taskId;
            this.sink = sink;
            this.sse = sse;
        }

        long highestSeq() {
            return highest;
        }

        void offer(Object item) {
            if (released.get()) {
                return;
            }
            if (size.incrementAndGet() > maxPending && item != CLOSE) {
                LOG.info(() -> "event stream of " + user + " dropped: the client does not read (" + maxPending
                        + " events pending)");
                pending.add(CLOSE);
            } else {
                pending.add(item);
            }
            if (draining.compareAndSet(false, true)) {
                try {
                    senders.execute(this::drain);
                } catch (RuntimeException e) { // shut down
                    draining.set(false);
                    release(this);
                }
            }
        }

        private void drain() {
            try {
                Map<UUID, Optional<Role>> roles = new java.util.HashMap<>();
                Object item;
                while ((item = pending.poll()) != null) {
                    size.decrementAndGet();
                    if (released.get()) {
                        continue;
                    }
                    if (item == CLOSE || sink.isClosed()) {
                        release(this);
                    } else if (item == KEEP_ALIVE) {
                        send(sse.newEventBuilder().comment("keep-alive").build());
                    } else {
                        deliver((Versioned) item, roles);
                    }
                }
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "event stream ended: " + e);
                release(this);
            } finally {
                draining.set(false);
                if (!pending.isEmpty() && draining.compareAndSet(false, true)) {
                    try {
                        senders.execute(this::drain);
                    } catch (RuntimeException e) {
                        draining.set(false);
                        release(this);
                    }
                }
            }
        }

        private void deliver(Versioned v, Map<UUID, Optional<Role>> roles) {
            BackgroundTask t = v.task();
            Long last = sent.get(t.id());
            if (last != null && last >= v.seq()) {
                return; // an older or repeated state of this task: never after a newer one
            }
            Optional<Role> role = roles.computeIfAbsent(t.teamId(), team -> access.roleOf(team, user));
            boolean visible = role.isPresent() && (role.get().isStaff() || t.ownerId().equals(user));
            if (!visible) {
                if (taskId != null) {
                    release(this); // the caller lost the task: the stream ends
                }
                return;
            }
            sent.put(t.id(), v.seq());
            highest = Math.max(highest, v.seq());
            send(sse.newEventBuilder().name("task").id(Long.toString(v.seq()))
                    .data(jsonb.toJson(TaskJson.of(t, links))).build());
            if (taskId != null && isFinal(t)) {
                release(this);
            }
        }

        private void send(OutboundSseEvent event) {
            sink.send(event).whenComplete((ok, error) -> {
                if (error != null) {
                    release(this);
                }
            });
        }
    }

    /** @return the open streams' count per user (operators; tests) */
    public Map<UUID, Integer> streamsPerUser() {
        Map<UUID, Integer> out = new LinkedHashMap<>();
        perUser.forEach((u, n) -> {
            if (n.get() > 0) {
                out.put(u, n.get());
            }
        });
        return out;
    }

}
