package com.teamdesk.tasks.task.fairshare;

import com.teamdesk.tasks.task.spi.StatementPermits;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The engine's one seam to R46-R48 on plain threads ({@link FairShare}): an urgent kind's request and execution hold
 * urgent windows (R47), a request's window is handed over to its job's claim, a background kind's body runs on a
 * background thread (R46) with the bound's permits (R48), an urgent one's on the caller's thread without. The deployed
 * worker: {@code FairShareIT}, {@code UrgentYieldIT}, {@code BackgroundStatementsIT}.
 */
class FairShareSeamTest {

    private static final int EXPORT = 0;
    private static final int REMINDER = 5;

    private final FairShare fairShare = newFairShare();

    @AfterEach
    void stop() {
        fairShare.cpu.stop();
    }

    private static FairShare newFairShare() {
        UrgentWork urgent = new UrgentWork();
        urgent.yieldMs = 60_000;
        urgent.reservedMinPriority = 5;
        urgent.handoverMs = 60_000;
        BackgroundStatements statements = new BackgroundStatements();
        statements.configured = 2;
        statements.urgent = urgent;
        statements.init();
        BackgroundCpu cpu = new BackgroundCpu();
        cpu.enabled = true;
        cpu.reservedMinPriority = 5;
        cpu.threadFactory = new ManagedThreadFactory() {
            @Override
            public Thread newThread(Runnable r) {
                Thread t = new Thread(r, "background-seam-test");
                t.setDaemon(true);
                return t;
            }

            @Override
            public ForkJoinWorkerThread newThread(ForkJoinPool pool) {
                throw new UnsupportedOperationException();
            }
        };
        FairShare f = new FairShare();
        f.urgent = urgent;
        f.statements = statements;
        f.cpu = cpu;
        f.reservedMinPriority = 5;
        return f;
    }

    @Test
    void anUrgentExecutionHoldsAWindowAndRunsItsBodyHereWithoutPermits() throws Exception {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        try (FairShare.ExecutionShare share = fairShare.execution("job-r", REMINDER)) {
            assertEquals(1, fairShare.urgent.openWindows(), "its urgent window (R47)");
            assertSame(StatementPermits.NONE, share.statements(), "urgent statements take no permit (R48)");
            share.run(() -> ranOn.set(Thread.currentThread()));
        }
        assertSame(Thread.currentThread(), ranOn.get(), "an urgent body stays on the worker's thread");
        assertEquals(0, fairShare.urgent.openWindows(), "closed with the share");
    }

    @Test
    void aBackgroundExecutionRunsItsBodyOnABackgroundThreadUnderTheBound() throws Exception {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        try (FairShare.ExecutionShare share = fairShare.execution("job-e", EXPORT)) {
            assertEquals(0, fairShare.urgent.openWindows(), "no window for background work");
            assertSame(fairShare.statements, share.statements(), "the instance's bound (R48)");
            share.run(() -> {
                ranOn.set(Thread.currentThread());
                try (StatementPermits.Permit p = share.statements().begin()) {
                    assertEquals(1, fairShare.statements.running(), "a permit held: " + p);
                }
            });
            IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> share.run(() -> {
                throw new IllegalStateException("the body's own");
            }));
            assertEquals("the body's own", thrown.getMessage(), "passed on as thrown");
        }
        assertEquals("background-seam-test", ranOn.get().getName());
        assertEquals(Thread.MIN_PRIORITY, ranOn.get().getPriority(), "R46");
        assertEquals(0, fairShare.statements.running(), "no permit left taken");
    }

    @Test
    @SuppressWarnings("try") // the shares are held for their blocks
    void anUrgentRequestsWindowIsHandedOverToItsJobsClaim() {
        try (FairShare.RequestShare request = fairShare.request(REMINDER)) {
            assertEquals(1, fairShare.urgent.openWindows());
            request.dispatched("job-1");
        }
        assertEquals(1, fairShare.urgent.openWindows(), "outlives the answer until its job's claim");
        fairShare.execution("job-2", EXPORT).close();
        assertEquals(1, fairShare.urgent.openWindows(), "another job's claim leaves it open");
        try (FairShare.ExecutionShare claimed = fairShare.execution("job-1", REMINDER)) {
            assertEquals(1, fairShare.urgent.openWindows(), "the execution's own window replaces the request's");
            assertEquals(1, fairShare.urgent.handOversClaimed());
        }
        assertEquals(0, fairShare.urgent.openWindows());
    }

    @Test
    @SuppressWarnings("try") // the shares are held for their blocks
    void aRequestThatDispatchedNothingClosesItsWindowWithTheAnswerAndABackgroundOneOpensNone() {
        try (FairShare.RequestShare request = fairShare.request(REMINDER)) {
            assertEquals(1, fairShare.urgent.openWindows());
        }
        assertEquals(0, fairShare.urgent.openWindows());
        try (FairShare.RequestShare request = fairShare.request(EXPORT)) {
            assertEquals(0, fairShare.urgent.openWindows(), "no urgent work open: the yield returned at once");
        }
        try (FairShare.RequestShare request = fairShare.request(-1)) {
            assertEquals(0, fairShare.urgent.openWindows(), "an unknown kind neither yields nor opens");
        }
    }
}
