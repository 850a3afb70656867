package com.teamdesk.tasks.web;

import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletRequestWrapper;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.ServletResponseWrapper;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The two things the servlet API cannot do on Payara and its HTTP engine (Grizzly) can, reached by
 * reflection because the WAR compiles against the Jakarta EE API only:
 *
 * <ul>
 * <li>{@link #setReasonPhrase}: Servlet 6 removed {@code setStatus(int, String)}, and Grizzly knows no
 * reason phrase for 422, 428 and 429, so its status line reads {@code 429 CUSTOM};</li>
 * <li>{@link #connectionOf}: how many bytes wait for a client that does not read (a slow reader: the
 * engine queues writes without bound once the socket is full), closing its connection at once, and
 * hearing when the engine closes it.</li>
 * </ul>
 *
 * <p>Path (Payara 6): {@code RequestFacade/ResponseFacade} → private field {@code request}/{@code response}
 * (Catalina) → {@code getCoyoteRequest()}/{@code getCoyoteResponse()} (Grizzly). When any step is missing
 * (another server, another Payara), each method does nothing and returns false or empty; the first miss
 * is logged once at INFO. Never throws.
 */
final class GrizzlyBridge {
    private static final Logger LOG = Logger.getLogger(GrizzlyBridge.class.getName());
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    private GrizzlyBridge() {
    }

    /**
     * Sets the status line's reason phrase of {@code response} (its status code stays as set).
     *
     * @return true when the container took it
     */
    static boolean setReasonPhrase(ServletResponse response, int status, String phrase) {
        try {
            ServletResponse r = response;
            while (r instanceof ServletResponseWrapper w) {
                r = w.getResponse();
            }
            Object grizzly = engineSide(r, "response", "getCoyoteResponse");
            grizzly.getClass().getMethod("setStatus", int.class, String.class).invoke(grizzly, status, phrase);
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            missing("reason phrase", e);
            return false;
        }
    }

    /** A client's TCP connection as the HTTP engine holds it. */
    interface ClientConnection {
        /** Used when the engine does not expose its connection: nothing known, nothing done. */
        ClientConnection NONE = new ClientConnection() {
            @Override
            public void abort() {
            }

            @Override
            public long queuedBytes() {
                return -1;
            }

            @Override
            public Runnable onClose(Runnable action) {
                return () -> { };
            }
        };

        /**
         * Closes the connection at once (Grizzly's graceful close: what was already written and flushed is still
         * sent, then the connection ends); a write blocked on it fails. Never throws.
         */
        void abort();

        /** @return bytes written by the application and not yet taken by the socket, or -1 when unknown */
        long queuedBytes();

        /**
         * Runs {@code action} (once, on the engine's thread: it must only hand off) when the engine closes the
         * connection, for whatever reason: an I/O error, the client's reset seen by a write, a timeout.
         *
         * @return what takes the listener off again (call it when it is no longer wanted: a kept-alive
         *         connection serves later requests); never throws
         */
        Runnable onClose(Runnable action);
    }

    /**
     * @return the TCP connection of {@code request} (its Grizzly {@code NIOConnection}: {@code closeSilently()},
     *         {@code getAsyncWriteQueue().spaceInBytes()}), or {@link ClientConnection#NONE}
     */
    static ClientConnection connectionOf(ServletRequest request) {
        try {
            ServletRequest r = request;
            while (r instanceof ServletRequestWrapper w) {
                r = w.getRequest();
            }
            Object grizzly = engineSide(r, "request", "getCoyoteRequest");
            Object context = grizzly.getClass().getMethod("getContext").invoke(grizzly);
            Object connection = context.getClass().getMethod("getConnection").invoke(context);
            Method close = connection.getClass().getMethod("closeSilently");
            Object queue = connection.getClass().getMethod("getAsyncWriteQueue").invoke(connection);
            Method space = queue.getClass().getMethod("spaceInBytes");
            ClassLoader engine = connection.getClass().getClassLoader();
            Class<?> listenerType = Class.forName("org.glassfish.grizzly.CloseListener", false, engine);
            Method add = connection.getClass().getMethod("addCloseListener", listenerType);
            Method remove = connection.getClass().getMethod("removeCloseListener", listenerType);
            return new ClientConnection() {
                @Override
                public void abort() {
                    try {
                        close.invoke(connection);
                    } catch (ReflectiveOperationException | RuntimeException e) {
                        LOG.log(Level.FINE, "closing a connection", e);
                    }
                }

                @Override
                public long queuedBytes() {
                    try {
                        return ((Number) space.invoke(queue)).longValue();
                    } catch (ReflectiveOperationException | RuntimeException e) {
                        return -1;
                    }
                }

                @Override
                public Runnable onClose(Runnable action) {
                    Object listener = Proxy.newProxyInstance(engine, new Class<?>[] {listenerType}, (self, m, args) -> {
                        switch (m.getName()) {
                            case "onClosed" -> action.run();
                            case "hashCode" -> {
                                return System.identityHashCode(self);
                            }
                            case "equals" -> {
                                return self == args[0];
                            }
                            case "toString" -> {
                                return "teamdesk event stream close listener";
                            }
                            default -> {
                                // no other methods
                            }
                        }
                        return null;
                    });
                    try {
                        add.invoke(connection, listener);
                    } catch (ReflectiveOperationException | RuntimeException e) {
                        LOG.log(Level.FINE, "close listener not added", e);
                        return () -> { };
                    }
                    return () -> {
                        try {
                            remove.invoke(connection, listener);
                        } catch (ReflectiveOperationException | RuntimeException e) {
                            LOG.log(Level.FINE, "close listener not removed", e);
                        }
                    };
                }
            };
        } catch (ReflectiveOperationException | RuntimeException e) {
            missing("connection", e);
            return ClientConnection.NONE;
        }
    }

    /** @return the Grizzly object behind a container facade: its Catalina field {@code field}, then {@code getter} */
    private static Object engineSide(Object facade, String field, String getter) throws ReflectiveOperationException {
        Object catalina = field(facade, field);
        return catalina.getClass().getMethod(getter).invoke(catalina);
    }

    private static Object field(Object target, String name) throws ReflectiveOperationException {
        for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                Object value = f.get(target);
                if (value == null) {
                    throw new NoSuchFieldException(name + " is null");
                }
                return value;
            } catch (NoSuchFieldException e) {
                // the next superclass
            }
        }
        throw new NoSuchFieldException(target.getClass().getName() + "." + name);
    }

    private static void missing(String what, Exception e) {
        if (WARNED.compareAndSet(false, true)) {
            LOG.info(() -> "The HTTP engine does not expose the " + what + " as Payara 6 does (" + e
                    + "); status lines keep the engine's reason phrases, and a slow reader is noticed only by its backlog"
                    + " of events.");
        }
    }
}
