package com.teamdesk.tasks.task.live;

import com.teamdesk.tasks.common.TooManyRequestsException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The caps on open event streams of one server: at most {@code perServer} in all and {@code perUser}
 * per user. {@link #acquire} takes a slot or refuses with 429 {@code events.too_many_streams}, saying how
 * many are open and when to retry; {@link #release} gives it back (once per acquired slot: the caller
 * guards that). Thread-safe; counts never go below 0.
 */
final class StreamSlots {
    private final int perServer;
    private final int perUser;
    private final int userRetryAfterSeconds;
    private final int serverRetryAfterSeconds;
    private final AtomicInteger open = new AtomicInteger();
    private final Map<UUID, Integer> byUser = new ConcurrentHashMap<>();

    /**
     * @param perServer               cap of this server
     * @param perUser                 cap of one user
     * @param userRetryAfterSeconds   {@code Retry-After} when the user's cap is reached (a closed client's
     *                                slot is free within that)
     * @param serverRetryAfterSeconds {@code Retry-After} when the server's cap is reached
     */
    StreamSlots(int perServer, int perUser, int userRetryAfterSeconds, int serverRetryAfterSeconds) {
        this.perServer = perServer;
        this.perUser = perUser;
        this.userRetryAfterSeconds = userRetryAfterSeconds;
        this.serverRetryAfterSeconds = serverRetryAfterSeconds;
    }

    /**
     * Takes one slot of {@code user}.
     *
     * @throws TooManyRequestsException the server's or the user's cap is reached (nothing taken)
     */
    void acquire(UUID user) {
        int all = open.incrementAndGet();
        if (all > perServer) {
            open.decrementAndGet();
            throw new TooManyRequestsException("events.too_many_streams", "This server has " + perServer
                    + " event streams open, its limit; retry in " + serverRetryAfterSeconds + " s.",
                    serverRetryAfterSeconds);
        }
        boolean[] refused = {false};
        byUser.compute(user, (u, n) -> {
            int now = n == null ? 0 : n;
            refused[0] = now >= perUser;
            return refused[0] ? n : Integer.valueOf(now + 1);
        });
        if (refused[0]) {
            open.decrementAndGet();
            throw new TooManyRequestsException("events.too_many_streams", "You have " + perUser
                    + " event streams open on this server, the limit per user; close one (a closed page's stream is"
                    + " let go within about " + userRetryAfterSeconds + " s) and retry.", userRetryAfterSeconds);
        }
    }

    /** Gives back one slot of {@code user}. */
    void release(UUID user) {
        open.updateAndGet(n -> Math.max(0, n - 1));
        byUser.computeIfPresent(user, (u, n) -> n <= 1 ? null : Integer.valueOf(n - 1));
    }

    /** @return the open streams of this server */
    int open() {
        return open.get();
    }

    /** @return users with open streams → their count, most first */
    Map<UUID, Integer> byUser() {
        Map<UUID, Integer> out = new LinkedHashMap<>();
        byUser.entrySet().stream().sorted((a, b) -> Integer.compare(b.getValue(), a.getValue()))
                .forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    /** @return the cap of this server */
    int perServer() {
        return perServer;
    }

    /** @return the cap of one user */
    int perUser() {
        return perUser;
    }
}
