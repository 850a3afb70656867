package com.teamdesk.tasks.task.observe;

import com.teamdesk.tasks.task.spi.TaskKind;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Timer;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TaskMetrics makes Payara's timers one at a time (its registry shares a plain {@code HashMap} between the
 * timers it builds: two at once failed a deployment with a {@code ConcurrentModificationException}, CI of
 * stop 40) and makes each once.
 */
class TaskMetricsTest {
    private static final TaskKind EXPORT = TaskKind.of("EXPORT");

    @Test
    void timersAreMadeOneAtATimeAndOnce() throws Exception {
        CountDownLatch firstInside = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        AtomicInteger made = new AtomicInteger();
        Timer timer = (Timer) Proxy.newProxyInstance(Timer.class.getClassLoader(), new Class<?>[] {Timer.class},
                (p, m, a) -> null);
        TaskMetrics metrics = new TaskMetrics();
        metrics.registry = (MetricRegistry) Proxy.newProxyInstance(MetricRegistry.class.getClassLoader(),
                new Class<?>[] {MetricRegistry.class}, (p, m, a) -> {
                    if (!m.getName().equals("timer")) {
                        throw new UnsupportedOperationException(m.getName());
                    }
                    mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    try {
                        if (made.incrementAndGet() == 1) {
                            firstInside.countDown();
                            assertTrue(releaseFirst.await(30, TimeUnit.SECONDS));
                        }
                        return timer;
                    } finally {
                        inside.decrementAndGet();
                    }
                });

        Thread first = new Thread(() -> metrics.runDuration(EXPORT, Duration.ZERO), "init");
        first.start();
        assertTrue(firstInside.await(30, TimeUnit.SECONDS), "the first timer is being made");
        Thread worker = new Thread(() -> metrics.queueWait(EXPORT, Duration.ofMillis(5)), "worker");
        worker.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (worker.getState() != Thread.State.BLOCKED && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(Thread.State.BLOCKED, worker.getState(), "the second timer waits for the first");
        releaseFirst.countDown();
        first.join(30_000);
        worker.join(30_000);
        assertEquals(1, mostInside.get(), "never two timers made at once");
        assertEquals(2, made.get());

        metrics.runDuration(EXPORT, Duration.ofMillis(1));
        assertEquals(2, made.get(), "a timer is made once and kept");
    }
}
