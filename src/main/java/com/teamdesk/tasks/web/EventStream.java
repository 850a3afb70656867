package com.teamdesk.tasks.web;

import com.teamdesk.tasks.task.ledger.TaskReads.Versioned;
import com.teamdesk.tasks.task.live.LiveSubscriber;
import com.teamdesk.tasks.task.spi.BackgroundTask;
import com.teamdesk.tasks.task.spi.TaskStatus;
import com.teamdesk.tasks.team.Role;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseEventSink;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One open event stream: its filter (one task, or one team's tasks), its queue of items not yet written,
 * and what it already sent. Items are written in order by one drain at a time on the owner's pool; the
 * listener and the watch only queue. A stream ends once ({@link #end}); its slot is given back then,
 * whatever thread notices first.
 *
 * <p>{@link #watch} tells a client that went away (a probe write fails) from one that stopped reading
 * (bytes pile up, or a write does not return: issue 34).
 *
 * <p>About 300 lines: one stream's queue, its drain and its watch share its state.
 */
final class EventStream implements LiveSubscriber {
    private static final Logger LOG = Logger.getLogger(EventStream.class.getName());
    /** Queued to end the stream after what is queued before it. */
    static final Object CLOSE = new Object();
    /** Queued by the watch: an SSE comment, written only to learn whether the client is still there. */
    static final Object PROBE = new Object();

    /** Why a stream ended: the tag of {@code teamdesk_event_streams_ended_total}. */
    enum End {
        /** The client went away (a write failed, or the container closed the sink). */
        CLIENT_GONE,
        /** The client stopped reading: its backlog or a blocked write passed the bound. */
        SLOW_READER,
        /** Nothing more to send: a final state, or the caller lost the task. */
        FINISHED,
        /** This server stops. */
        SERVER_STOP
    }

    /** What a stream needs of the server that holds it. */
    interface Owner {
        /** The pool the drains run on. */
        Executor senders();

        /** @return the caller's role in the team, if a member (re-read per batch) */
        Optional<Role> roleOf(UUID teamId, UUID user);

        /** @return the API's JSON of the task */
        String json(BackgroundTask task);

        /** Called once when the stream ends, before the sink is closed. */
        void ended(EventStream stream, End why);

        /** Most items a stream holds for a client not reading. */
        int maxPending();

        /** @return now, in {@link System#nanoTime()} units */
        long nanoTime();

        /** @return the watch's period, in ns: a stream quiet for half of it is probed */
        long probeNanos();

        /** @return how long a write may block before its client counts as a slow reader, in ns */
        long slowReaderNanos();

        /** @return most bytes that may wait for a client's socket before it counts as a slow reader */
        long maxQueuedBytes();
    }

    final UUID user;
    final UUID teamId;
    final UUID taskId;
    private final SseEventSink sink;
    private final Sse sse;
    private final GrizzlyBridge.ClientConnection connection;
    /** Takes this stream's close listener off its connection (kept-alive connections serve later requests). */
    private volatile Runnable stopListening = () -> { };
    private final Owner owner;
    private final Queue<Object> pending = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicBoolean draining = new AtomicBoolean();
    private final AtomicBoolean ended = new AtomicBoolean();
    /** Last sequence sent per task (bounded: the oldest entries are forgotten). Drain thread only. */
    private final Map<UUID, Long> sent = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<UUID, Long> eldest) {
            return size() > 10_000;
        }
    };
    private volatile long highest = -1;
    /** nanoTime when the write in progress began, 0 when none is. */
    private volatile long writingSince;
    /** nanoTime when the last write returned (or the stream opened). */
    private volatile long lastWrite;

    EventStream(UUID user, UUID teamId, UUID taskId, SseEventSink sink, Sse sse,
            GrizzlyBridge.ClientConnection connection, Owner owner) {
        this.user = user;
        this.teamId = teamId;
        this.taskId = taskId;
        this.sink = sink;
        this.sse = sse;
        this.connection = connection;
        this.owner = owner;
        this.lastWrite = owner.nanoTime();
    }

    /**
     * Ends the stream as soon as the engine closes its connection (an I/O error, a reset seen by its writer);
     * the probe covers what the engine does not see by itself (R38). Call once, after the stream holds its
     * slot: the engine may call back at once when the connection is already closed.
     */
    void listenForClose() {
        // Handed off: the engine calls back on its own I/O thread, and giving the slot back may touch the
        // database (the last stream withdraws the live interest, R33).
        stopListening = connection.onClose(() -> {
            try {
                owner.senders().execute(() -> end(End.CLIENT_GONE));
            } catch (RuntimeException e) { // the pool is shut down: the server stops
                end(End.SERVER_STOP);
            }
        });
        if (ended.get()) {
            stopListening.run();
        }
    }

    @Override
    public UUID user() {
        return user;
    }

    @Override
    public UUID taskId() {
        return taskId;
    }

    @Override
    public UUID teamId() {
        return teamId;
    }

    @Override
    public void offer(Versioned change) {
        offer((Object) change);
    }

    @Override
    public void stop() {
        end(End.SERVER_STOP);
    }

    /**
     * The watch's pass (issue 34): a closed sink ends the stream; a write blocked for the slow-reader bound, or
     * too many bytes waiting for the socket, cut it; a stream quiet for half a period gets a probe. Half a
     * period: the last probe's write came a little after the last pass, and still counts as one period ago.
     */
    @Override
    public void watch(long now) {
        long writing = writingSince;
        if (sink.isClosed()) {
            end(End.CLIENT_GONE);
        } else if (writing != 0 && now - writing > owner.slowReaderNanos()) {
            cut("a write blocked for " + java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(now - writing) + " ms");
        } else if (connection.queuedBytes() > owner.maxQueuedBytes()) {
            cut(connection.queuedBytes() + " bytes wait for its socket");
        } else if (writing == 0 && size.get() == 0 && now - lastWrite >= owner.probeNanos() / 2) {
            offer(PROBE);
        }
    }

    /** @return whether the change is one this stream follows (before visibility, checked when sent) */
    @Override
    public boolean follows(BackgroundTask t) {
        return taskId != null ? taskId.equals(t.id()) : teamId.equals(t.teamId());
    }

    /** @return the highest change sequence sent */
    @Override
    public long highestSeq() {
        return highest;
    }

    /** @return whether the stream has ended */
    boolean isEnded() {
        return ended.get();
    }

    /**
     * Queues a change, {@link #PROBE} or {@link #CLOSE}. A client over its backlog bound is cut at once
     * (the drain may be blocked in a write to it).
     */
    void offer(Object item) {
        if (ended.get()) {
            return;
        }
        if (size.incrementAndGet() > owner.maxPending() && item != CLOSE) {
            size.decrementAndGet();
            cut(owner.maxPending() + " events pending");
            return;
        }
        pending.add(item);
        schedule();
    }

    /**
     * Ends a stream whose client does not read: the slot is given back now and the connection closed, so a
     * write blocked on it fails and frees its thread.
     */
    void cut(String why) {
        if (end(End.SLOW_READER)) {
            LOG.info(() -> "event stream of " + user + " cut: the client does not read (" + why + ")");
            connection.abort();
        }
    }

    /**
     * Ends the stream once: tells the owner (the slot), then closes the sink on the pool (closing can wait
     * for a blocked write).
     *
     * @return false when it had already ended
     */
    boolean end(End why) {
        if (!ended.compareAndSet(false, true)) {
            return false;
        }
        try {
            stopListening.run();
            owner.ended(this, why);
        } finally {
            pending.clear();
            Runnable close = () -> {
                try {
                    sink.close();
                } catch (RuntimeException e) {
                    LOG.log(Level.FINE, "event stream close", e);
                }
            };
            try {
                owner.senders().execute(close);
            } catch (RuntimeException e) { // the pool is shut down
                close.run();
            }
        }
        return true;
    }

    private void schedule() {
        if (draining.compareAndSet(false, true)) {
            try {
                owner.senders().execute(this::drain);
            } catch (RuntimeException e) { // shut down
                draining.set(false);
                end(End.SERVER_STOP);
            }
        }
    }

    private void drain() {
        try {
            Map<UUID, Optional<Role>> roles = new HashMap<>();
            Object item;
            while ((item = pending.poll()) != null) {
                size.decrementAndGet();
                if (ended.get()) {
                    continue;
                }
                if (sink.isClosed()) {
                    end(End.CLIENT_GONE);
                } else if (item == CLOSE) {
                    end(End.FINISHED);
                } else if (item == PROBE) {
                    write(sse.newEventBuilder().comment("").build());
                } else {
                    deliver((Versioned) item, roles);
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "event stream ended: " + e);
            end(End.CLIENT_GONE);
        } finally {
            draining.set(false);
            if (!pending.isEmpty() && !ended.get()) {
                schedule();
            }
        }
    }

    private void deliver(Versioned v, Map<UUID, Optional<Role>> roles) {
        BackgroundTask t = v.task();
        Long last = sent.get(t.id());
        if (last != null && last >= v.seq()) {
            return; // an older or repeated state of this task: never after a newer one
        }
        Optional<Role> role = roles.computeIfAbsent(t.teamId(), team -> owner.roleOf(team, user));
        boolean visible = role.isPresent() && (role.get().isStaff() || t.ownerId().equals(user));
        if (!visible) {
            if (taskId != null) {
                end(End.FINISHED); // the caller lost the task: the stream ends
            }
            return;
        }
        sent.put(t.id(), v.seq());
        highest = Math.max(highest, v.seq());
        write(sse.newEventBuilder().name("task").id(Long.toString(v.seq())).data(owner.json(t)).build());
        if (taskId != null && isFinal(t)) {
            end(End.FINISHED);
        }
    }

    /** Writes on the drain's thread; Jersey's send returns when the bytes are with the container. */
    private void write(OutboundSseEvent event) {
        writingSince = owner.nanoTime();
        try {
            sink.send(event).whenComplete((ok, error) -> {
                if (error != null) {
                    end(End.CLIENT_GONE);
                }
            });
        } finally {
            writingSince = 0;
            lastWrite = owner.nanoTime();
        }
    }

    static boolean isFinal(BackgroundTask t) {
        return t.status() == TaskStatus.COMPLETED || t.status() == TaskStatus.FAILED;
    }
}
