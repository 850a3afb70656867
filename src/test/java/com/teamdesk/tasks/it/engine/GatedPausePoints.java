package com.teamdesk.tasks.it.engine;

import com.teamdesk.tasks.platform.SchemaMigration;
import com.teamdesk.tasks.task.fairshare.BackgroundCpu;
import com.teamdesk.tasks.task.spi.Lease;
import com.teamdesk.tasks.task.spi.PausePoint;
import com.teamdesk.tasks.task.spi.PausePoints;
import jakarta.annotation.Priority;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * Test {@link PausePoints}: deployed into the test WAR, it replaces the production no-op (CDI
 * alternative with a priority). A test arms a {@link Gate} or a fault for the Nth arrival (1-based)
 * of a task's executions at a point; executions with nothing armed pass straight through.
 * Gates wait at most {@link #MAX_WAIT_S} seconds for their release, only to detect a sync point
 * that never came: ordering itself comes from the latches.
 */
@Alternative
@Priority(1000)
@ApplicationScoped
public class GatedPausePoints implements PausePoints {
    /** Upper bound of any wait on a gate, in seconds. */
    public static final long MAX_WAIT_S = 8;

    /**
     * Stands for "whichever task arrives": gates, faults and probes armed for it match the Nth arrival of
     * any task at the point, for tests whose task is created (and dispatched) by production code, so its
     * id is not known beforehand. Only for classes that run one task at a time; reset it in finally.
     */
    public static final UUID ANY_TASK = new UUID(0, 0);

    private record Key(PausePoint point, UUID taskId, int occurrence) {
    }

    private final Map<Key, Gate> gates = new ConcurrentHashMap<>();
    private final Map<Key, Supplier<? extends RuntimeException>> faults = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> arrivals = new ConcurrentHashMap<>();
    private final Map<Key, CompletableFuture<Boolean>> autoCommitProbes = new ConcurrentHashMap<>();
    private final Map<Key, CompletableFuture<ThreadSeen>> threadProbes = new ConcurrentHashMap<>();

    /**
     * What a thread probe saw of the thread that reached a point (R46).
     *
     * @param priority its Java priority
     * @param osNice   its OS nice value, -1000 where the OS does not tell
     */
    public record ThreadSeen(String name, int priority, int osNice) {
    }

    @Resource(lookup = SchemaMigration.DATASOURCE)
    DataSource dataSource;

    /**
     * Arms a probe for the {@code occurrence}-th arrival at {@code point}: on the executing thread, inside
     * whatever transaction the execution is in, it takes a connection from the application's datasource
     * and records whether it is in auto-commit mode (true means: not enlisted, every statement commits
     * alone — the defect of issue 10).
     *
     * @return completed with the connection's auto-commit flag when the execution arrives
     */
    public CompletableFuture<Boolean> probeAutoCommit(PausePoint point, UUID taskId, int occurrence) {
        CompletableFuture<Boolean> f = new CompletableFuture<>();
        autoCommitProbes.put(new Key(point, taskId, occurrence), f);
        return f;
    }

    /**
     * Arms a probe for the {@code occurrence}-th arrival at {@code point}: records the executing thread's Java
     * priority and OS nice value (R46: an export's body on a background thread, the engine's points on the worker's).
     */
    public CompletableFuture<ThreadSeen> probeThread(PausePoint point, UUID taskId, int occurrence) {
        CompletableFuture<ThreadSeen> f = new CompletableFuture<>();
        threadProbes.put(new Key(point, taskId, occurrence), f);
        return f;
    }

    /** Arms a gate for the {@code occurrence}-th arrival of {@code taskId}'s executions at {@code point}. */
    public Gate gate(PausePoint point, UUID taskId, int occurrence) {
        Gate g = new Gate(point);
        gates.put(new Key(point, taskId, occurrence), g);
        return g;
    }

    /** Arms a fault: the {@code occurrence}-th arrival at {@code point} throws what {@code fault} makes. */
    public void fault(PausePoint point, UUID taskId, int occurrence, Supplier<? extends RuntimeException> fault) {
        faults.put(new Key(point, taskId, occurrence), fault);
    }

    /** @return how many times executions of {@code taskId} reached {@code point} */
    public int arrivals(PausePoint point, UUID taskId) {
        AtomicInteger n = arrivals.get(point + "/" + taskId);
        return n == null ? 0 : n.get();
    }

    /** Releases every gate of the task and forgets its gates, faults and counts (call in finally). */
    public void reset(UUID taskId) {
        gates.entrySet().removeIf(e -> {
            if (e.getKey().taskId().equals(taskId)) {
                e.getValue().release();
                return true;
            }
            return false;
        });
        faults.keySet().removeIf(k -> k.taskId().equals(taskId));
        autoCommitProbes.keySet().removeIf(k -> k.taskId().equals(taskId));
        threadProbes.keySet().removeIf(k -> k.taskId().equals(taskId));
        arrivals.keySet().removeIf(k -> k.endsWith("/" + taskId));
    }

    @Override
    public void reached(PausePoint point, Lease lease) {
        int n = arrivals.computeIfAbsent(point + "/" + lease.taskId(), k -> new AtomicInteger()).incrementAndGet();
        Key key = new Key(point, lease.taskId(), n);
        Key any = new Key(point, ANY_TASK, n);
        if (!gates.containsKey(key) && !faults.containsKey(key) && !autoCommitProbes.containsKey(key)
                && !threadProbes.containsKey(key)) {
            key = any;
        }
        CompletableFuture<Boolean> probe = autoCommitProbes.remove(key);
        if (probe != null) {
            try (Connection c = dataSource.getConnection()) {
                probe.complete(c.getAutoCommit());
            } catch (SQLException e) {
                probe.completeExceptionally(e);
            }
        }
        CompletableFuture<ThreadSeen> seen = threadProbes.remove(key);
        if (seen != null) {
            Thread t = Thread.currentThread();
            seen.complete(new ThreadSeen(t.getName(), t.getPriority(), BackgroundCpu.niceOfCurrentThread().orElse(-1000)));
        }
        Gate g = gates.get(key);
        if (g != null) {
            g.arrive(lease);
        }
        Supplier<? extends RuntimeException> f = faults.get(key);
        if (f != null) {
            throw f.get();
        }
    }

    /** One pause: the execution signals its arrival, then waits for {@link #release()}. */
    public static final class Gate {
        private final PausePoint point;
        private final CountDownLatch arrived = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);
        private volatile Lease lease;

        Gate(PausePoint point) {
            this.point = point;
        }

        void arrive(Lease l) {
            lease = l;
            arrived.countDown();
            try {
                if (!released.await(MAX_WAIT_S, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("gate at " + point + " was never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted at " + point, e);
            }
        }

        /**
         * Waits until an execution is paused here.
         *
         * @return the paused execution's lease
         * @throws AssertionError when nobody arrived within {@link #MAX_WAIT_S} s
         */
        public Lease awaitArrival() throws InterruptedException {
            if (!arrived.await(MAX_WAIT_S, TimeUnit.SECONDS)) {
                throw new AssertionError("no execution reached " + point + " within " + MAX_WAIT_S + " s");
            }
            return Objects.requireNonNull(lease);
        }

        /** Lets the paused execution go on (idempotent). */
        public void release() {
            released.countDown();
        }
    }
}
