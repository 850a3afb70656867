package com.teamdesk.tasks.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.enterprise.concurrent.ManagedThreadFactory;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * R46's hand-off on plain threads: the body's outcome and exceptions come back as themselves, the body runs on a
 * thread of Java priority 1, an interrupt of the waiting worker thread reaches the body and is waited out, and a
 * stopped pool runs the body on the caller's thread. The deployed worker's threads: {@code FairShareIT}.
 */
class BackgroundCpuTest {

    private static final long WAIT_S = 10;

    private final BackgroundCpu cpu = newCpu();

    @AfterEach
    void stop() {
        cpu.stop();
    }

    private static BackgroundCpu newCpu() {
        BackgroundCpu cpu = new BackgroundCpu();
        cpu.enabled = true;
        cpu.reservedMinPriority = 5;
        cpu.threadFactory = new ManagedThreadFactory() {
            @Override
            public Thread newThread(Runnable r) {
                Thread t = new Thread(r, "background-test");
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
        assertTrue(cpu.backgroundNice().isPresent());
        assertTrue(cpu.describe().contains("R46"), cpu.describe());
    }
}
