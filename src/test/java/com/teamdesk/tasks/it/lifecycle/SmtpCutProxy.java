package com.teamdesk.tasks.it.lifecycle;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Issue 54: a TCP proxy on loopback in front of an SMTP server that, when {@link #armCutAfterFinalDot() armed}, lets one
 * message's final dot ({@code CRLF.CRLF}) through to the server and then closes the client's connection as soon as the
 * server's reply comes, without passing it on: the server took the message, the sender never learns it (R60's
 * <em>unknown</em>). Otherwise it forwards every byte; when the server cannot be reached it closes the client's
 * connection at once (the sender's connect fails). Daemon threads; {@link #close()} ends them.
 */
final class SmtpCutProxy implements AutoCloseable {
    private static final byte[] FINAL_DOT = {'\r', '\n', '.', '\r', '\n'};

    private final int upstreamPort;
    private final ServerSocket listener;
    private final AtomicBoolean armed = new AtomicBoolean();
    private final AtomicInteger cuts = new AtomicInteger();
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private SmtpCutProxy(int upstreamPort) throws IOException {
        this.upstreamPort = upstreamPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon("smtp-proxy-accept", this::accept);
    }

    /** Starts a proxy on a free loopback port in front of {@code 127.0.0.1:upstreamPort}. */
    static SmtpCutProxy start(int upstreamPort) throws IOException {
        return new SmtpCutProxy(upstreamPort);
    }

    /** @return the port senders connect to */
    int port() {
        return listener.getLocalPort();
    }

    /** The next message's reply is swallowed and its connection closed (once). */
    void armCutAfterFinalDot() {
        armed.set(true);
    }

    /** @return how many replies were swallowed */
    int cuts() {
        return cuts.get();
    }

    @Override
    public void close() throws IOException {
        listener.close();
        sockets.forEach(SmtpCutProxy::quietly);
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                sockets.add(client);
                Socket server;
                try {
                    server = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
                } catch (IOException down) {
                    quietly(client); // the server is down: so is the sender's connection
                    continue;
                }
                sockets.add(server);
                AtomicBoolean dotPassed = new AtomicBoolean();
                daemon("smtp-proxy-up", () -> clientToServer(client, server, dotPassed));
                daemon("smtp-proxy-down", () -> serverToClient(server, client, dotPassed));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** Forwards the client's bytes; marks when an armed cut's final dot went through. */
    private void clientToServer(Socket client, Socket server, AtomicBoolean dotPassed) {
        int matched = 0;
        try (InputStream in = client.getInputStream(); OutputStream out = server.getOutputStream()) {
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) >= 0;) {
                for (int k = 0; k < n; k++) { // marked before the dot is passed on, so its reply cannot slip through
                    matched = buf[k] == FINAL_DOT[matched] ? matched + 1 : buf[k] == FINAL_DOT[0] ? 1 : 0;
                    if (matched == FINAL_DOT.length) {
                        matched = 0;
                        if (armed.compareAndSet(true, false)) {
                            dotPassed.set(true);
                        }
                    }
                }
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // either side closed
        } finally {
            quietly(client);
            quietly(server);
        }
    }

    /** Forwards the server's bytes, except the reply to an armed cut's final dot: then both sides are closed. */
    private void serverToClient(Socket server, Socket client, AtomicBoolean dotPassed) {
        try (InputStream in = server.getInputStream(); OutputStream out = client.getOutputStream()) {
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) >= 0;) {
                if (dotPassed.get()) {
                    cuts.incrementAndGet();
                    return; // the server's reply to the message: never passed on
                }
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // either side closed
        } finally {
            quietly(client);
            quietly(server);
        }
    }

    private static void quietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing
        }
    }

    private static void daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }
}
