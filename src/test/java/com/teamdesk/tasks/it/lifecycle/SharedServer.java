package com.teamdesk.tasks.it.lifecycle;

import com.teamdesk.tasks.it.support.TestDeployments;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One Payara Micro for all the black-box IT classes of a test run that ask for the same settings, where
 * Arquillian would boot one per class (~15 s each on two cores). The server runs the WAR
 * {@link TestDeployments#app(Map, Class[])} builds for those settings (the same archive a
 * {@code @Deployment(testable = false)} deploys: its own random Redis prefix, deleted at the end of the session),
 * started as {@link ServerProcess} starts one; the first class that registers it starts it, later classes of the same
 * settings reuse it, and it is stopped when the run's last test is done.
 *
 * <p>Only for classes that talk to the server over HTTP and own their data (a fresh team per test), so that
 * they cannot tell whether another class ran on the same server before them. A class that breaks its server
 * on purpose (a database outage) or reads the server's own counters keeps a server of its own.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final SharedServer SERVER = SharedServer.apiOnly();
 *
 * final URL url = SERVER.url(); // Api.at(url)
 * }</pre>
 */
public final class SharedServer implements BeforeAllCallback {
    /**
     * The API without background work: worker and timers off, so the tests' tasks stay where the API put
     * them; a request racing another one with the same {@code Idempotency-Key} waits 300 ms for it (IdempotencyIT's
     * race; the others send no racing keys).
     */
    public static final Map<String, String> API_ONLY = Map.of("teamdesk.worker.enabled", "false",
            "teamdesk.timers.enabled", "false", "teamdesk.idempotency.wait-ms", "300");

    /**
     * The API with its worker, without timers (no slot or sweep moves a row behind a test's back; a task created
     * through the API is dispatched by its INSERT); a team may have 3 schedules (ScheduleApiIT's limit; the other
     * classes make none).
     */
    public static final Map<String, String> API_AND_WORKER = Map.of("teamdesk.timers.enabled", "false",
            "teamdesk.schedule.max-per-team", "3");

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedServer.class);
    private static final Duration READY = Duration.ofSeconds(180);
    private static final AtomicInteger STARTED = new AtomicInteger();

    private final Map<String, String> config;
    private final boolean own;
    private volatile Running running;

    private SharedServer(Map<String, String> config, boolean own) {
        this.config = new TreeMap<>(config);
        this.own = own;
    }

    /** @return the shared server of {@link #API_ONLY} */
    public static SharedServer apiOnly() {
        return of(API_ONLY);
    }

    /**
     * @param config MicroProfile Config overrides of the server, as for {@link TestDeployments#app(Map, Class[])}
     * @return the shared server of these settings
     */
    public static SharedServer of(Map<String, String> config) {
        return new SharedServer(config, false);
    }

    /**
     * A server of the registering class alone, started the same way and stopped after the class: for a black-box class
     * that breaks its server on purpose (DatabaseOutageIT), which then finds its server's connections by
     * {@link #applicationName()}.
     *
     * @param config MicroProfile Config overrides of the server, as for {@link TestDeployments#app(Map, Class[])}
     * @return the class's own server
     */
    public static SharedServer own(Map<String, String> config) {
        return new SharedServer(config, true);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (own) { // the class's store: closed (server stopped) after the class
            running = context.getStore(NAMESPACE).getOrComputeIfAbsent(config, c -> start("own", config), Running.class);
            return;
        }
        // the root context's store: closed (server stopped) when the whole run is done
        running = context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(config, c -> start("shared", config), Running.class);
    }

    /**
     * @return the server's root, {@code http://127.0.0.1:<port>/}
     * @throws IllegalStateException before the extension ran (register it as a static field)
     */
    public URL url() {
        return running().url();
    }

    /**
     * @return the server's {@code teamdesk.redis.prefix} (its queue's keys start with it)
     * @throws IllegalStateException before the extension ran
     */
    public String redisPrefix() {
        return running().prefix();
    }

    /**
     * @return the PostgreSQL {@code application_name} of every connection of this server (its pool and its live
     *         listener): {@code teamdesk-it-<shared|own>-<n>}
     * @throws IllegalStateException before the extension ran
     */
    public String applicationName() {
        return running().applicationName();
    }

    private Running running() {
        Running r = running;
        if (r == null) {
            throw new IllegalStateException("the shared server is not started: register it with @RegisterExtension on a static field");
        }
        return r;
    }

    private static Running start(String kind, Map<String, String> config) {
        String name = kind + "-" + STARTED.incrementAndGet();
        String applicationName = ServerProcess.applicationName(name);
        try {
            Path dir = Files.createDirectories(Path.of("target", "lifecycle"));
            Path war = dir.resolve(name + ".war");
            String prefix = "it-" + name + "-" + UUID.randomUUID().toString().substring(0, 8);
            Map<String, String> settings = new TreeMap<>(config);
            settings.put("teamdesk.redis.prefix", prefix); // deleted at the end of the session, as every deployment's
            TestDeployments.app(settings).as(ZipExporter.class).exportTo(war.toFile(), true);
            if (System.getenv("TEAMDESK_DB_URL") == null || System.getenv("TEAMDESK_DB_URL").isBlank()) {
                throw new IllegalStateException("TEAMDESK_DB_URL is not set: run the ITs through Maven (mvn verify)");
            }
            ServerProcess server = ServerProcess.start(name, war, Map.of()); // its connections: applicationName
            try {
                server.awaitReady(READY);
                return new Running(server, server.root().toURL(), prefix, applicationName);
            } catch (Exception | Error e) {
                server.close();
                throw e;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(name + " did not start", e);
        }
    }

    /** A started server, stopped (SIGTERM, bounded) when the root context closes (its store closes what is AutoCloseable). */
    private record Running(ServerProcess server, URL url, String prefix, String applicationName) implements AutoCloseable {
        @Override
        public void close() {
            server.close();
        }
    }
}
