package com.teamdesk.tasks.it.lifecycle;

import com.teamdesk.tasks.testing.TestRedisPrefixes;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a lifecycle IT class starts for all its tests (its private schema, its Redis prefixes, its server
 * processes, queue clients, a Redis Cluster), closed after the class in the reverse order of their start: the
 * servers stop before the keys under their prefixes are deleted ({@link TestRedisPrefixes#delete(String)}) and
 * the schema is dropped last, so that no server writes to what is gone. One place for the start-and-stop every
 * multi-server IT repeated:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ClassResources RESOURCES = new ClassResources();
 *
 * @BeforeAll
 * static void start() throws Exception {
 *     data = RESOURCES.schema();
 *     servers = RESOURCES.startReady(READY, ServerProcess.env(data, RESOURCES.prefix("it-x"), Map.of()), "x-a", "x-b");
 * }
 * }</pre>
 *
 * Everything is closed even when a close fails; the first failure is rethrown, the others are added to it.
 */
final class ClassResources implements AfterAllCallback {
    private final Deque<AutoCloseable> open = new ArrayDeque<>();

    /** @return a new private schema ({@link PrivateSchema#create()}), dropped after everything else is closed */
    PrivateSchema schema() throws SQLException {
        PrivateSchema data = PrivateSchema.create();
        add(data::drop);
        return data;
    }

    /**
     * @param family what the prefix is for, e.g. {@code it-scale}
     * @return a new Redis prefix ({@link TestRedisPrefixes#create(String)}), its keys deleted after the class once
     *         what was started after it is closed
     */
    String prefix(String family) {
        String prefix = TestRedisPrefixes.create(family);
        add(() -> TestRedisPrefixes.delete(prefix));
        return prefix;
    }

    /**
     * Starts servers as {@link ServerProcess#startReady(Duration, Map, String...)} does, each stopped after the class.
     *
     * @return the servers, in the order of {@code names}, ready
     */
    List<ServerProcess> startReady(Duration ready, Map<String, String> env, String... names) throws Exception {
        List<ServerProcess> servers = ServerProcess.startReady(ready, env, names);
        servers.forEach(this::add);
        return servers;
    }

    /**
     * Registers {@code resource} to be closed after the class (before what was registered earlier).
     *
     * @return {@code resource}
     */
    synchronized <T extends AutoCloseable> T add(T resource) {
        open.push(resource);
        return resource;
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        Exception failure = null;
        AutoCloseable next;
        while ((next = poll()) != null) {
            try {
                next.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private synchronized AutoCloseable poll() {
        return open.poll();
    }
}
