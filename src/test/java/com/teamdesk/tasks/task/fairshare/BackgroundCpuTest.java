package com.teamdesk.tasks.task.fairshare;

import jakarta.enterprise.concurrent.ManagedThreadFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * R46's hand-off on plain threads: the body's outcome and exceptions come back as themselves, the body runs on a
 * thread of Java priority 1, an interrupt of the waiting worker thread reaches the body and is waited out, and a
 * stopped pool runs the body on the caller's thread. The deployed worker's threads: {@code FairShareIT}.
 */
class BackgroundCpuTest {

    private static final long WAIT_S = 10;

    /** Every BackgroundCpu a test made, stopped after it. */
    private final List<BackgroundCpu> made = new ArrayList<>();
    private final BackgroundCpu cpu = newCpu(r -> new Thread(r, "background-test"));

    @AfterEach
    void stop() {
        made.forEach(BackgroundCpu::stop);
    }

    /** A BackgroundCpu whose container thread factory is {@code threads} (daemon threads), stopped after the test. */
    private BackgroundCpu newCpu(java.util.function.Function<Runnable, Thread> threads) {
        BackgroundCpu cpu = new BackgroundCpu();
        made.add(cpu);
        cpu.enabled = true;
        cpu.reservedMinPriority = 5;
        cpu.threadFactory = new ManagedThreadFactory() {
            @Override
            public Thread newThread(Runnable r) {
                Thread t = threads.apply(r);
                t.setDaemon(true);
                return t;
            }

            @Override
            public ForkJoinWorkerThread newThread(ForkJoinPool pool) {
                throw new UnsupportedOperationException();
            }
        };
        return cpu;
    }

    @Test
    void kindsBelowTheReservedMinimumAreBackgroundAndTheSwitchTurnsItOff() {
        assertTrue(cpu.isBackground(0), "EXPORT (0)");
        assertTrue(cpu.isBackground(4));
        assertFalse(cpu.isBackground(5), "REMINDER and DIGEST (5)");
        assertFalse(cpu.isBackground(10));
        cpu.enabled = false;
        assertFalse(cpu.isBackground(0));
    }

    @Test
    void theBodyRunsOnAThreadOfTheLowestPriorityAndItsValueComesBack() throws Exception {
        Thread caller = Thread.currentThread();
        Thread[] ran = new Thread[1];
        int priority = cpu.call(() -> {
            ran[0] = Thread.currentThread();
            return Thread.currentThread().getPriority();
        });
        assertEquals(Thread.MIN_PRIORITY, priority);
        assertNotSame(caller, ran[0]);
        assertEquals(Thread.NORM_PRIORITY, caller.getPriority(), "the caller's priority is left alone");
    }

    @Test
    void theBodysExceptionsAndErrorsAreThrownAsThemselves() {
        IOException io = new IOException("disk");
        assertSame(io, assertThrows(IOException.class, () -> cpu.call(() -> {
            throw io;
        })));
        IllegalStateException lost = new IllegalStateException("taken over");
        assertSame(lost, assertThrows(IllegalStateException.class, () -> cpu.call(() -> {
            throw lost;
        })));
        CompletionException wrapped = new CompletionException(new IllegalStateException("inner"));
        assertSame(wrapped, assertThrows(CompletionException.class, () -> cpu.call(() -> {
            throw wrapped; // not unwrapped on the way back
        })));
        AssertionError error = new AssertionError("boom");
        assertSame(error, assertThrows(AssertionError.class, () -> cpu.call(() -> {
            throw error;
        })));
    }

    /**
     * The worker thread is interrupted while the body runs: the body sees the interrupt, and the worker thread
     * returns only after the body ended (as it would have with the body on its own thread), its interrupt flag set.
     */
    @Test
    void anInterruptOfTheWorkerThreadReachesTheBodyAndTheWorkerWaitsForItsEnd() throws Exception {
        CountDownLatch bodyStarted = new CountDownLatch(1);
        CountDownLatch bodyInterrupted = new CountDownLatch(1);
        CountDownLatch finishBody = new CountDownLatch(1);
        List<String> order = new CopyOnWriteArrayList<>();
        AtomicBoolean flagAfter = new AtomicBoolean();
        CompletableFuture<String> outcome = new CompletableFuture<>();
        Thread worker = new Thread(() -> {
            try {
                String r = cpu.call(() -> {
                    bodyStarted.countDown();
                    try {
                        new CountDownLatch(1).await(WAIT_S, TimeUnit.SECONDS);
                        return "not interrupted";
                    } catch (InterruptedException e) {
                        bodyInterrupted.countDown();
                    }
                    finishBody.await(WAIT_S, TimeUnit.SECONDS); // the body goes on after the interrupt
                    order.add("body ended");
                    return "interrupted";
                });
                order.add("worker returned");
                flagAfter.set(Thread.currentThread().isInterrupted());
                outcome.complete(r);
            } catch (Exception e) {
                outcome.completeExceptionally(e);
            }
        }, "worker-slot");
        worker.start();
        assertTrue(bodyStarted.await(WAIT_S, TimeUnit.SECONDS));
        worker.interrupt();
        assertTrue(bodyInterrupted.await(WAIT_S, TimeUnit.SECONDS), "the interrupt reached the body");
        assertFalse(outcome.isDone(), "the worker still waits for its body");
        finishBody.countDown();
        assertEquals("interrupted", outcome.get(WAIT_S, TimeUnit.SECONDS));
        assertEquals(List.of("body ended", "worker returned"), order);
        assertTrue(flagAfter.get(), "the worker thread's interrupt flag is set again");
    }

    /** An interrupt meant for one body is cleared before the caller hears of its end: the thread's next body starts clean. */
    @Test
    void aBodysInterruptIsClearedFromItsBackgroundThread() throws Exception {
        Thread[] first = new Thread[1];
        cpu.call(() -> {
            first[0] = Thread.currentThread();
            Thread.currentThread().interrupt(); // left set by a body
            return null;
        });
        assertFalse(first[0].isInterrupted());
    }

    @Test
    void aStoppedPoolRunsTheBodyOnTheCallersThread() throws Exception {
        cpu.call(() -> null); // the pool exists
        cpu.stop();
        assertSame(Thread.currentThread(), cpu.call(Thread::currentThread));
    }

    @Test
    void theNiceOfAThreadIsReadFromTheOsOnLinux() {
        if (!System.getProperty("os.name").startsWith("Linux")) {
            assertTrue(BackgroundCpu.niceOfCurrentThread().isEmpty());
            return;
        }
        int nice = BackgroundCpu.niceOfCurrentThread().orElseThrow();
        assertTrue(nice >= -20 && nice <= 19, "nice " + nice);
        int background = cpu.backgroundNice().orElseThrow();
        String line = cpu.describe();
        if (background > nice) { // this JVM applies priorities (-XX:ThreadPriorityPolicy=1)
            assertTrue(line.contains("run at OS nice " + background + " (R46)"), line);
        } else {
            assertTrue(line.startsWith("background priority not applied"), line);
        }
    }

    /** The container's factory is stopped (Payara throws IllegalStateException): the body runs on the caller's thread. */
    @Test
    void aRefusingThreadFactoryLeavesTheBodyToTheCaller() throws Exception {
        BackgroundCpu stopped = newCpu(r -> {
            throw new IllegalStateException("ManagedThreadFactory is stopped");
        });
        assertSame(Thread.currentThread(), stopped.call(Thread::currentThread));
    }

    /**
     * A background thread that never runs what it was given (Payara's managed thread whose context could not be set
     * up): the caller takes the body back after the start timeout and runs it itself, once.
     */
    @Test
    void aBodyNoThreadStartsIsTakenBackByItsCaller() throws Exception {
        BackgroundCpu broken = newCpu(r -> new Thread(() -> { }, "never-runs-its-task"));
        broken.startTimeoutMs = 50;
        assertSame(Thread.currentThread(), broken.call(Thread::currentThread));
    }

    /**
     * The caller is interrupted before a background thread started the body: the caller runs it, interrupted, as on
     * its own thread; the background thread, let go afterwards, does not run it a second time.
     */
    @Test
    void anInterruptBeforeTheBodyStartedRunsItOnTheCallerInterrupted() throws Exception {
        CountDownLatch letThreadGo = new CountDownLatch(1);
        CountDownLatch threadDone = new CountDownLatch(1);
        BackgroundCpu gated = newCpu(r -> new Thread(() -> {
            try {
                letThreadGo.await(WAIT_S, TimeUnit.SECONDS);
                r.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                threadDone.countDown();
            }
        }, "starts-late"));
        List<String> runs = new CopyOnWriteArrayList<>();
        CompletableFuture<Boolean> sawInterrupt = new CompletableFuture<>();
        Thread worker = new Thread(() -> {
            Thread.currentThread().interrupt(); // interrupted before and while it hands the body over
            try {
                gated.call(() -> {
                    runs.add(Thread.currentThread().getName());
                    sawInterrupt.complete(Thread.currentThread().isInterrupted());
                    return null;
                });
            } catch (Exception e) {
                sawInterrupt.completeExceptionally(e);
            }
        }, "worker-slot");
        try {
            worker.start();
            assertTrue(sawInterrupt.get(WAIT_S, TimeUnit.SECONDS), "the body saw the interrupt");
            worker.join(TimeUnit.SECONDS.toMillis(WAIT_S));
            letThreadGo.countDown();
            gated.stop(); // the pool's thread, now idle after the task it found taken back, ends
            assertTrue(threadDone.await(WAIT_S, TimeUnit.SECONDS));
            assertEquals(List.of("worker-slot"), runs, "run once, by the caller");
        } finally {
            letThreadGo.countDown();
        }
    }
}
