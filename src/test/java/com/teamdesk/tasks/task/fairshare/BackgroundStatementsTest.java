package com.teamdesk.tasks.task.fairshare;

import com.teamdesk.tasks.task.spi.StatementPermits;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * R48's bound on plain threads: a statement takes a permit at once while one is free, waits while the bound is taken
 * and goes on when a permit comes back, permits go in arrival order, a second close gives nothing back twice, an
 * interrupt ends the wait with the flag kept, {@code 0} bounds nothing and the default is the JVM's processors.
 * Ordered by the bound's own count of waiters, never by sleeps. The deployed worker: {@code BackgroundStatementsIT}.
 */
class BackgroundStatementsTest {

    private static final long WAIT_S = 10;

    private static BackgroundStatements bound(int configured) {
        BackgroundStatements b = new BackgroundStatements();
        b.configured = configured;
        UrgentWork u = new UrgentWork();
        u.yieldMs = 50;
        u.reservedMinPriority = 5;
        u.handoverMs = 100;
        b.urgent = u;
        b.init();
        return b;
    }

    /** A statement on a thread of its own that takes a permit and keeps it until {@code release} completes. */
    private record Statement(Thread thread, CompletableFuture<Void> holding, CompletableFuture<Void> release,
            CompletableFuture<Boolean> interrupted) {
    }

    /** Starts a statement and returns once it holds its permit or waits for one (by the bound's counts). */
    private static Statement start(BackgroundStatements b) {
        int waitingBefore = b.waiting();
        int runningBefore = b.running();
        CompletableFuture<Void> holding = new CompletableFuture<>();
        CompletableFuture<Void> release = new CompletableFuture<>();
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try (StatementPermits.Permit p = b.begin()) {
                interrupted.complete(Thread.currentThread().isInterrupted());
                Objects.requireNonNull(p, "begin() returns a permit to close");
                holding.complete(null);
                release.join();
            }
        }, "background-statement");
        t.setDaemon(true);
        t.start();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (b.waiting() == waitingBefore && b.running() == runningBefore && !holding.isDone()) {
            assertTrue(System.nanoTime() < until, "the statement never reached the bound");
            Thread.onSpinWait();
        }
        return new Statement(t, holding, release, interrupted);
    }

    @Test
    void statementsBeyondTheBoundWaitAndGoOnInArrivalOrder() throws Exception {
        BackgroundStatements b = bound(2);
        Statement first = start(b);
        Statement second = start(b);
        first.holding().get(WAIT_S, TimeUnit.SECONDS);
        second.holding().get(WAIT_S, TimeUnit.SECONDS);
        assertEquals(2, b.running());
        Statement third = start(b);
        Statement fourth = start(b);
        assertEquals(2, b.waiting(), "two wait while the bound of 2 is taken");
        assertFalse(third.holding().isDone());
        assertFalse(fourth.holding().isDone());

        first.release().complete(null);
        third.holding().get(WAIT_S, TimeUnit.SECONDS);
        assertFalse(fourth.holding().isDone(), "the first to wait is the first served");
        assertEquals(2, b.running(), "never more than the bound");
        second.release().complete(null);
        fourth.holding().get(WAIT_S, TimeUnit.SECONDS);
        third.release().complete(null);
        fourth.release().complete(null);
        for (Statement s : List.of(first, second, third, fourth)) {
            s.thread().join(TimeUnit.SECONDS.toMillis(WAIT_S));
        }
        assertEquals(0, b.running());
        assertEquals(0, b.waiting());
        assertEquals(2, b.waits(), "the two waits are counted (teamdesk_background_statement_waits)");
        assertTrue(b.waitedNanos() > 0);
    }

    @Test
    void aNewcomerNeverTakesAFreedPermitBeforeABodyAlreadyWaiting() throws Exception {
        BackgroundStatements b = bound(1);
        StatementPermits.Permit held = b.begin();
        Statement waiter = start(b);
        assertEquals(1, b.waiting());
        waiter.release().complete(null); // once it holds the permit, it gives it back at once
        // This thread frees the permit and asks again in the same breath, long before the waiter can wake: a barging
        // acquire would take it here, with the waiter still parked.
        held.close();
        try (StatementPermits.Permit again = b.begin()) {
            assertTrue(waiter.holding().isDone(), "the body that waited first held the permit before the newcomer");
            Objects.requireNonNull(again);
        }
        waiter.thread().join(TimeUnit.SECONDS.toMillis(WAIT_S));
        assertEquals(0, b.running());
        assertEquals(0, b.waiting());
    }

    @Test
    void aSecondCloseGivesNothingBackTwice() throws Exception {
        BackgroundStatements b = bound(1);
        StatementPermits.Permit p = b.begin();
        p.close();
        p.close();
        StatementPermits.Permit again = b.begin();
        Statement waits = start(b);
        assertEquals(1, b.waiting(), "the bound of 1 is still 1 after a double close");
        again.close();
        waits.holding().get(WAIT_S, TimeUnit.SECONDS);
        waits.release().complete(null);
        waits.thread().join(TimeUnit.SECONDS.toMillis(WAIT_S));
        assertEquals(0, b.running());
    }

    @Test
    void anInterruptEndsTheWaitWithTheFlagKept() throws Exception {
        BackgroundStatements b = bound(1);
        StatementPermits.Permit held = b.begin();
        Statement waits = start(b);
        assertEquals(1, b.waiting());
        waits.thread().interrupt();
        assertTrue(waits.interrupted().get(WAIT_S, TimeUnit.SECONDS), "the flag stays set for the next lease check");
        waits.release().complete(null);
        waits.thread().join(TimeUnit.SECONDS.toMillis(WAIT_S));
        assertEquals(1, b.running(), "the interrupted statement took no permit: only the held one runs");
        held.close();
        assertEquals(0, b.running());
        b.begin().close(); // the permit came back
    }

    @Test
    void zeroBoundsNothingAndTheDefaultIsTheProcessors() throws Exception {
        BackgroundStatements off = bound(0);
        assertEquals(0, off.bound());
        List<StatementPermits.Permit> many = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            many.add(off.begin());
        }
        many.forEach(StatementPermits.Permit::close);
        assertEquals(0, off.waits());
        assertEquals(Runtime.getRuntime().availableProcessors(), bound(-1).bound());
    }
}
