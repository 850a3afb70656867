package com.teamdesk.tasks.queue;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * Tells a Redis connection failure (Redis down, restarted, unreachable, a cluster without a reachable
 * master) from every other Redis error (a script error, a wrong type): the first is the infrastructure's and
 * passes with the outage (issue 28), the second is a bug to report as such.
 */
public final class RedisFaults {
    private static final int MAX_CAUSES = 32;

    private RedisFaults() {
    }

    /**
     * @param e an exception, or null
     * @return whether {@code e} or one of its causes is a Jedis connection failure or a cluster operation that
     *         ran out of reachable nodes
     */
    public static boolean isConnectionFailure(Throwable e) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = e; t != null && seen.add(t) && seen.size() <= MAX_CAUSES; t = t.getCause()) {
            if (t instanceof JedisConnectionException || t instanceof JedisClusterOperationException) {
                return true;
            }
        }
        return false;
    }
}
