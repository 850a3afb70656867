package com.teamdesk.tasks.platform;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Recognises an exception caused by a lost or unreachable database (PostgreSQL restarted, its
 * backends terminated, the network to it down, the pool unable to hand out a connection), however it
 * is wrapped (EclipseLink's DatabaseException, the ledger's LedgerException, EJBException,
 * TransactionRolledbackException, Payara's SQLException around a ResourceException, ...).
 *
 * <p>A database-side cause is one of:
 * <ul>
 * <li>an {@link SQLException} of SQLState class {@code 08} (connection exception, e.g. pgjdbc's
 * {@code 08006} "An I/O error occurred" or {@code 08003} "This connection has been closed"), or
 * {@code 57P01} (admin shutdown, also what {@code pg_terminate_backend} sends), {@code 57P02} (crash
 * shutdown), {@code 57P03} (cannot connect now: starting up or shutting down);</li>
 * <li>the connector's {@code jakarta.resource.ResourceException} or Payara's {@code PoolingException}
 * (matched by name: an internal class), which the pool throws when it cannot get or use a
 * physical connection.</li>
 * </ul>
 * Causes and {@link SQLException#getNextException() next exceptions} are followed, each at most once.
 *
 * <p>Used by the API (503 instead of 500) and by the task engine (issue 28: such an error is the
 * infrastructure's, not the task's, and is never counted as one of its attempts).
 */
public final class DatabaseUnavailable {
    /** Most exceptions looked at in one chain: a bound against odd, very long chains. */
    private static final int MAX_VISITED = 64;

    private DatabaseUnavailable() {
    }

    /** @return whether {@code e} or one of its causes says the database is lost or unreachable */
    public static boolean isCause(Throwable e) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> todo = new ArrayDeque<>();
        if (e != null) {
            todo.add(e);
        }
        while (!todo.isEmpty() && seen.size() < MAX_VISITED) {
            Throwable t = todo.poll();
            if (!seen.add(t)) {
                continue;
            }
            if (isUnavailable(t)) {
                return true;
            }
            if (t.getCause() != null) {
                todo.add(t.getCause());
            }
            if (t instanceof SQLException sql && sql.getNextException() != null) {
                todo.add(sql.getNextException());
            }
        }
        return false;
    }

    private static boolean isUnavailable(Throwable t) {
        if (t instanceof SQLException sql) {
            String state = sql.getSQLState();
            return state != null && (state.startsWith("08") || state.equals("57P01") || state.equals("57P02")
                    || state.equals("57P03"));
        }
        for (Class<?> c = t.getClass(); c != null && c != Throwable.class; c = c.getSuperclass()) {
            String name = c.getName();
            if (name.equals("jakarta.resource.ResourceException")
                    || name.equals("com.sun.appserv.connectors.internal.api.PoolingException")) {
                return true;
            }
        }
        return false;
    }
}
