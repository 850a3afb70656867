package com.teamdesk.tasks.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * R47's gate on plain threads: a background statement passes at once with no urgent window open, waits while one is
 * open and goes on when the last one closes, never waits longer than its bound, and an interrupt ends the wait with
 * the flag kept. Ordered by latches and the gate's own count of waiters, never by sleeps. The deployed worker:
 * {@code FairShareIT.anExportsNextStatementWaitsWhileAReminderRuns}.
 */
class UrgentWorkTest {

    private static final long WAIT_S = 10;

    private static UrgentWork gate(long yieldMs) {
        UrgentWork u = new UrgentWork();
        u.yieldMs = yieldMs;
        u.reservedMinPriority = 5;
        return u;
    }

    /** Starts {@code u.yieldToUrgent()} on a thread of its own and returns once it waits in the gate. */
    private static CompletableFuture<Long> waitingStatement(UrgentWork u) throws InterruptedException {
        int before = u.waiting();
        CompletableFuture<Long> done = new CompletableFuture<>();
        Thread t = new Thread(() -> done.complete(u.yieldToUrgent()), "background-statement");
        t.setDaemon(true);
        t.start();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (u.waiting() == before && !done.isDone()) {
            assertTrue(System.nanoTime() < until, "the statement never reached the gate");
            Thread.onSpinWait();
        }
        return done;
    }

    @Test
    void aStatementPassesAtOnceWithNoUrgentWindowOpen() {
        UrgentWork u = gate(60_000);
        assertEquals(0, u.yieldToUrgent());
        u.open(5).close();
        assertEquals(0, u.yieldToUrgent(), "a closed window holds nothing");
        assertEquals(0, u.yields());
    }

    @Test
    void onlyUrgentKindsOpenAWindowAndZeroTurnsItOff() {
        UrgentWork u = gate(60_000);
        assertNull(u.open(0), "an export (priority 0) is no urgent work");
        assertNull(u.open(4));
        UrgentWork.Window w = u.open(5);
        assertNotNull(w, "a reminder (priority 5 and up) is");
        w.close();
        UrgentWork off = gate(0);
        assertNull(off.open(10));
        assertEquals(0, off.yieldToUrgent());
    }

    @Test
    void aStatementWaitsWhileAWindowIsOpenAndGoesOnWhenTheLastCloses() throws Exception {
        UrgentWork u = gate(60_000); // far longer than the test: only the windows' end releases it
        UrgentWork.Window first = u.open(5);
        UrgentWork.Window second = u.open(8);
        CompletableFuture<Long> statement = waitingStatement(u);
        first.close();
        first.close(); // a second close changes nothing
        assertEquals(1, u.openWindows());
        assertEquals(1, u.waiting(), "still held: one urgent window is open");
        assertTrue(!statement.isDone());
        second.close();
        long waited = statement.get(WAIT_S, TimeUnit.SECONDS);
        assertTrue(waited > 0 && waited < TimeUnit.SECONDS.toNanos(60), "released by the close: " + waited);
        assertEquals(0, u.openWindows());
        assertEquals(1, u.yields());
        assertEquals(waited, u.yieldedNanos());
    }

    @Test
    void aStatementNeverWaitsLongerThanTheBound() throws Exception {
        UrgentWork u = gate(20);
        UrgentWork.Window w = u.open(5); // never closed during the wait
        long waited = u.yieldToUrgent();
        assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(20), "waited its bound: " + waited);
        assertEquals(1, u.openWindows());
        w.close();
    }

    @Test
    void anInterruptEndsTheWaitAndStaysSet() throws Exception {
        UrgentWork u = gate(60_000);
        UrgentWork.Window w = u.open(5);
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            waiting.countDown();
            u.yieldToUrgent();
            interruptedAfter.complete(Thread.currentThread().isInterrupted());
        });
        t.setDaemon(true);
        t.start();
        waiting.await();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (u.waiting() == 0) {
            assertTrue(System.nanoTime() < until, "the statement never reached the gate");
            Thread.onSpinWait();
        }
        t.interrupt();
        assertTrue(interruptedAfter.get(WAIT_S, TimeUnit.SECONDS), "the interrupt is kept for the body");
        assertEquals(0, u.waiting());
        w.close();
    }
}
