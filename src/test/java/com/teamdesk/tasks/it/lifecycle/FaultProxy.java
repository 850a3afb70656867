package com.teamdesk.tasks.it.lifecycle;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The suite's own TCP fault proxy on loopback (issue 28), in front of PostgreSQL or Redis: servers connect to
 * {@link #port()} and the proxy forwards every byte to the real service, until a test injects a fault.
 *
 * <ul>
 * <li>{@link #cut()}: every connection is closed at once and new ones are refused (the listening socket is
 * closed: a connect gets ECONNREFUSED), as a database restart or failover does; {@link #heal()} listens
 * again on the same port.</li>
 * <li>{@link #partition()}: nothing is forwarded any more in either direction and new connections are
 * accepted but hang, as a network partition does; {@link #heal()} forwards again (bytes held back flow
 * on, connections opened meanwhile are connected upstream).</li>
 * </ul>
 * Loopback only; every thread is a daemon and {@link #close()} ends them all.
 */
final class FaultProxy implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(FaultProxy.class.getName());

    private final String name;
    private final int upstreamPort;
    private final int port;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    private volatile boolean partitioned;
    private volatile boolean closed;
    private volatile ServerSocket listener;

    private FaultProxy(String name, int upstreamPort, ServerSocket listener) {
        this.name = name;
        this.upstreamPort = upstreamPort;
        this.listener = listener;
        this.port = listener.getLocalPort();
        startAccepting(listener);
    }

    /** Starts a proxy on a free loopback port in front of {@code 127.0.0.1:upstreamPort}. */
    static FaultProxy start(String name, int upstreamPort) throws IOException {
        return new FaultProxy(name, upstreamPort, bind(0));
    }

    /** @return the loopback port servers connect to */
    int port() {
        return port;
    }

    /** Closes every connection and refuses new ones until {@link #heal()}. */
    void cut() throws IOException {
        LOG.info(() -> name + " proxy: CUT (connections closed, new ones refused)");
        ServerSocket l = listener;
        listener = null;
        if (l != null) {
            l.close();
        }
        closeAll();
    }

    /** Stops forwarding in both directions, accepting connections that then hang, until {@link #heal()}. */
    void partition() {
        LOG.info(() -> name + " proxy: PARTITION (nothing forwarded)");
        partitioned = true;
    }

    /** Ends a cut (listens again on the same port) or a partition (forwards again). */
    void heal() throws IOException {
        LOG.info(() -> name + " proxy: HEAL");
        if (listener == null && !closed) {
            ServerSocket l = bind(port);
            listener = l;
            startAccepting(l);
        }
        synchronized (gate) {
            partitioned = false;
            gate.notifyAll();
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        heal();
        ServerSocket l = listener;
        if (l != null) {
            l.close();
        }
        closeAll();
    }

    private static ServerSocket bind(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        return s;
    }

    private void startAccepting(ServerSocket l) {
        daemon(name + "-accept", () -> {
            while (!l.isClosed()) {
                Socket client;
                try {
                    client = l.accept();
                } catch (IOException e) {
                    return; // closed by cut() or close()
                }
                sockets.add(client);
                daemon(name + "-connect", () -> connect(client));
            }
        });
    }

    private void connect(Socket client) {
        awaitForwarding();
        Socket upstream;
        try {
            upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
        } catch (IOException e) {
            quietly(client);
            return;
        }
        sockets.add(upstream);
        daemon(name + "-up", () -> pump(client, upstream));
        daemon(name + "-down", () -> pump(upstream, client));
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                awaitForwarding();
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (SocketException e) {
            // closed by cut(), close() or the other side
        } catch (IOException e) {
            LOG.fine(() -> name + " proxy pump ended: " + e);
        } finally {
            quietly(from);
            quietly(to);
        }
    }

    /** Blocks while partitioned: a bounded wait per round, so close() always ends it. */
    private void awaitForwarding() {
        synchronized (gate) {
            while (partitioned && !closed) {
                try {
                    gate.wait(1_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void closeAll() {
        for (Socket s : sockets) {
            quietly(s);
        }
    }

    private void quietly(Socket s) {
        sockets.remove(s);
        try {
            s.close();
        } catch (IOException e) {
            LOG.fine(() -> "close: " + e);
        }
    }

    private static void daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }
}
