package com.teamdesk.tasks.task.live;

import com.teamdesk.tasks.common.TooManyRequestsException;
import com.teamdesk.tasks.task.ledger.TaskReads.Versioned;
import com.teamdesk.tasks.task.ledger.TaskReads;
import com.teamdesk.tasks.task.observe.TaskMetrics;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The fan-out of committed task changes to this server's live subscribers (issue 14; moved here from the web
 * layer by issue 29): the registry and its caps ({@link StreamSlots}: per user and per server, 429
 * {@code events.too_many_streams} with {@code Retry-After}), the live-interest lease while any is open (R33),
 * every change of {@link TaskChangeListener} queued to the subscribers that follow it, a resync after a lost
 * notification, and the watch: every {@code teamdesk.events.probe-ms} (500) each subscriber's
 * {@link LiveSubscriber#watch} notices a client that went away or stopped reading (issue 34, R38).
 */
@ApplicationScoped
public class LiveFanOut {
    private static final Logger LOG = Logger.getLogger(LiveFanOut.class.getName());
    /** Most tasks one reconnect or resync of a team stream replays. */
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

    private final Map<LiveSubscriber, Boolean> subscribers = new ConcurrentHashMap<>();
    private StreamSlots slots;
    private ScheduledExecutorService watch;

    @PostConstruct
    void start() {
        probeMs = Math.max(50, probeMs);
        // A closed client is noticed by the first or second probe after it left, the first coming within one period.
        int userRetryAfter = (int) Math.max(1, (3 * probeMs + 999) / 1000);
        slots = new StreamSlots(maxStreams, maxPerUser, userRetryAfter, SERVER_RETRY_AFTER_SECONDS);
        watch = Executors.newSingleThreadScheduledExecutor(threadFactory);
        watch.scheduleWithFixedDelay(this::watch, probeMs, probeMs, TimeUnit.MILLISECONDS);
        changes.subscribe(this::onChange);
        changes.onResync(this::resyncAll);
        interest.onRegistered(this::resyncAll);
    }

    @PreDestroy
    void stop() {
        watch.shutdownNow();
        subscribers.keySet().forEach(LiveSubscriber::stop);
    }

    /** @return the watch's period (ms) */
    public long probeMs() {
        return probeMs;
    }

    /**
     * Takes a slot for {@code s} and starts queuing it every change it follows. Call before reading its first
     * state: the ledger notifies only while some instance listens (R33).
     *
     * @throws TooManyRequestsException the user's or the server's cap is reached (nothing taken)
     */
    public void register(LiveSubscriber s) {
        slots.acquire(s.user());
        subscribers.put(s, Boolean.TRUE);
        metrics.streams(1);
        interest.acquire();
    }

    /**
     * Gives back the slot of a subscriber that ended (once per registered subscriber: the caller guards that).
     *
     * @param why {@code client_gone}, {@code slow_reader}, {@code finished} or {@code server_stop}
     */
    public void ended(LiveSubscriber s, String why) {
        subscribers.remove(s);
        slots.release(s.user());
        metrics.streams(-1);
        metrics.streamEnded(why.toLowerCase(Locale.ROOT));
        try {
            interest.release();
        } catch (RuntimeException e) { // the bean may already be gone while the server stops
            LOG.log(Level.FINE, "task.live interest release", e);
        }
    }

    /** @return the number of open subscribers on this server */
    public int open() {
        return slots.open();
    }

    /** @return the open subscribers' count per user, most first (operators; tests) */
    public Map<UUID, Integer> perUser() {
        return slots.byUser();
    }

    /** @return this server's streams for operators: {@code open}, the caps, the users with open streams */
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

    /** Called on the listener's thread for every committed change: only queues. */
    void onChange(Versioned change) {
        BackgroundTask t = change.task();
        for (LiveSubscriber s : subscribers.keySet()) {
            if (s.follows(t)) {
                s.offer(change);
            }
        }
    }

    /** After the listening connection was lost: every subscriber reads what it may have missed. */
    void resyncAll() {
        for (LiveSubscriber s : subscribers.keySet()) {
            try {
                if (s.taskId() != null) {
                    reads.findVersioned(s.taskId()).ifPresent(s::offer);
                } else {
                    reads.changedSince(s.teamId(), null, s.highestSeq(), REPLAY_LIMIT).forEach(s::offer);
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "task.live resync of a stream failed: " + e);
            }
        }
    }

    /** One pass of the watch. Never throws (the schedule would stop). */
    private void watch() {
        try {
            long now = System.nanoTime();
            for (LiveSubscriber s : subscribers.keySet()) {
                s.watch(now);
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "event stream watch failed: " + e);
        }
    }
}
