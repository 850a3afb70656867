package com.teamdesk.tasks.task.fairshare;

import com.teamdesk.tasks.task.spi.BackgroundThreads;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * R46 (issue 30): the threads on which the bodies of background executions run. A kind whose priority is below
 * R42's {@code teamdesk.worker.reserved-min-priority} (exports) is background work: its body runs on a thread of
 * {@link Thread#MIN_PRIORITY}, which the JVM maps to OS nice 19 when it runs with {@code -XX:ThreadPriorityPolicy=1
 * -XX:JavaPriority1_To_OSPriority=19} (the launchers pass both). Where the CPU is contended, the scheduler then
 * gives it to the request threads and to urgent executions (reminders, digests) first; where it is not, the
 * background body uses all of it (nice takes nothing from an idle CPU).
 *
 * <p>Only the body is lowered. The claim, the completion (combined across slots), the fetch of the next job, lock
 * renewal and every other part of the engine stay on the worker's threads at normal priority, so that a lowered
 * thread never holds what an urgent execution waits for. A thread once lowered is never raised again (a process
 * that is not root may only raise a thread's nice value, never take it back down), so these threads run
 * background bodies only.
 *
 * <p>Without those JVM options the JVM applies no priority: everything runs as before and the worker logs so at
 * start ({@link #describe()}). {@code teamdesk.worker.background-priority=false} turns the hand-off off.
 */
@ApplicationScoped
public class BackgroundCpu implements BackgroundThreads {
    private static final Logger LOG = Logger.getLogger(BackgroundCpu.class.getName());

    @Resource
    ManagedThreadFactory threadFactory;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.background-priority", defaultValue = "true")
    boolean enabled;

    @Inject
    @ConfigProperty(name = "teamdesk.worker.reserved-min-priority", defaultValue = "5")
    int reservedMinPriority;

    /** How long a handed-off body may wait for a background thread to start it before its caller runs it, in ms. */
    long startTimeoutMs = 5_000;

    private ThreadPoolExecutor pool;

    /** @return whether an execution of a kind of {@code kindPriority} (0-10) runs its body here */
    public boolean isBackground(int kindPriority) {
        return enabled && !UrgentPriority.isUrgentPriority(kindPriority, reservedMinPriority);
    }

    /**
     * Runs {@code body} on a background thread and waits for it to end, whatever happens: an interrupt of the
     * caller is passed on to the body and waited out (the caller's interrupt flag is set again afterwards), as if
     * the body had run on the caller's thread. The caller's OpenTelemetry context (the execution's span, R45) is
     * current in the body. The body runs on the caller's thread instead when no background thread can be had (the
     * executor or the container's thread factory refuses: the application is stopping), when the caller is
     * interrupted before a background thread started it, or when none started it within {@link #startTimeoutMs}
     * (a thread whose context could not be set up never runs it); exactly one thread ever runs it.
     *
     * @return what the body returned
     * @throws Exception what the body threw (an {@link Error} as itself)
     */
    public <T> T call(Callable<T> body) throws Exception {
        Callable<T> inContext = io.opentelemetry.context.Context.current().wrap(body);
        Handoff<T> handoff = new Handoff<>(inContext);
        try {
            pool().execute(handoff);
        } catch (RuntimeException e) { // RejectedExecutionException, or the container's factory is stopped
            LOG.fine(() -> "no background thread (stopping?); the body runs on the worker's thread: " + e);
            return inContext.call();
        }
        return handoff.await(startTimeoutMs);
    }

    /**
     * @return a factory of background threads (the container's managed threads at {@link Thread#MIN_PRIORITY}),
     *         for the threads a background body starts itself (an export's chunk stores)
     */
    @Override
    public ThreadFactory threads() {
        return r -> {
            Thread t = threadFactory.newThread(r);
            t.setPriority(Thread.MIN_PRIORITY);
            return t;
        };
    }

    /**
     * @return the OS nice value of a background thread, run once to read it; empty where the OS does not tell
     *         (not Linux)
     */
    public OptionalInt backgroundNice() {
        try {
            return call(BackgroundCpu::niceOfCurrentThread);
        } catch (Exception e) {
            return OptionalInt.empty();
        }
    }

    /** @return one line for the worker's start log: whether R46 is in effect here, and how to turn it on */
    public String describe() {
        if (!enabled) {
            return "background priority off (teamdesk.worker.background-priority=false)";
        }
        OptionalInt nice = backgroundNice();
        OptionalInt normal = niceOfCurrentThread();
        if (nice.isEmpty() || normal.isEmpty()) {
            return "background priority: the OS nice of threads cannot be read here";
        }
        if (nice.getAsInt() > normal.getAsInt()) {
            return "bodies of kinds of priority < " + UrgentPriority.clampMinPriority(reservedMinPriority)
                    + " run at OS nice " + nice.getAsInt() + " (R46)";
        }
        return "background priority not applied: this JVM sets no thread priorities, so exports share the CPU"
                + " equally with reminders (start it with -XX:ThreadPriorityPolicy=1 -XX:JavaPriority1_To_OSPriority=19"
                + " as ./teamdesk up does, R46)";
    }

    /**
     * @return the OS nice value of the calling thread, from {@code /proc/thread-self/stat} (its 19th field);
     *         empty where that file does not exist or cannot be read
     */
    public static OptionalInt niceOfCurrentThread() {
        try {
            String stat = Files.readString(Path.of("/proc/thread-self/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return OptionalInt.of(Integer.parseInt(fields[16]));
        } catch (IOException | RuntimeException e) {
            return OptionalInt.empty();
        }
    }

    private synchronized ThreadPoolExecutor pool() {
        if (pool == null) {
            // one thread per running body (the worker's slots bound them); idle ones end after 60 s
            pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), threads());
        }
        return pool;
    }

    /** Stops the background threads when the application stops (after the worker drained, R22). */
    @PreDestroy
    synchronized void stop() {
        if (pool != null) {
            pool.shutdown();
        }
    }

    /**
     * One body handed to a background thread: who runs it (decided once: the background thread when it starts it
     * first, the caller when it takes it back first), its outcome, and the thread to pass an interrupt to.
     */
    private static final class Handoff<T> implements Runnable {
        private static final int NEW = 0;
        private static final int STARTED = 1;
        private static final int TAKEN_BACK = 2;

        private final Callable<T> body;
        private final AtomicInteger state = new AtomicInteger(NEW);
        private final CountDownLatch ended = new CountDownLatch(1);
        /** Written before {@link #ended} counts down. */
        private T value;
        /** Written before {@link #ended} counts down: what the body threw, as it threw it. */
        private Throwable failure;
        /** Guarded by {@code this}: the thread running the body, null before it starts and after it ended. */
        private Thread runner;
        /** Guarded by {@code this}: the caller was interrupted after the body's start was claimed, before it ran. */
        private boolean interruptPending;

        Handoff(Callable<T> body) {
            this.body = body;
        }

        @Override
        public void run() {
            if (!state.compareAndSet(NEW, STARTED)) {
                return; // the caller took it back
            }
            synchronized (this) {
                runner = Thread.currentThread();
                if (interruptPending) {
                    runner.interrupt();
                }
            }
            try {
                value = body.call();
            } catch (Throwable t) {
                failure = t;
            }
            synchronized (this) {
                runner = null;
                Thread.interrupted(); // an interrupt meant for this body never reaches the thread's next one
            }
            ended.countDown();
        }

        T await(long startTimeoutMs) throws Exception {
            long startBy = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(startTimeoutMs);
            boolean interrupted = false;
            boolean passed = false;
            try {
                while (true) {
                    if (interrupted && !passed) {
                        if (state.compareAndSet(NEW, TAKEN_BACK)) {
                            interrupted = false;
                            Thread.currentThread().interrupt(); // the body sees it, as on the caller's thread
                            return body.call();
                        }
                        passInterrupt(); // started: the body gets it
                        passed = true;
                    }
                    if (state.get() == NEW && System.nanoTime() - startBy >= 0 && state.compareAndSet(NEW, TAKEN_BACK)) {
                        return body.call(); // no background thread started it in time
                    }
                    try {
                        if (state.get() == NEW) {
                            ended.await(Math.max(1, startBy - System.nanoTime()), TimeUnit.NANOSECONDS);
                        } else {
                            ended.await();
                        }
                    } catch (InterruptedException e) {
                        interrupted = true;
                        passed = false;
                        continue;
                    }
                    if (ended.getCount() == 0) {
                        return outcome();
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private T outcome() throws Exception {
            if (failure == null) {
                return value;
            }
            if (failure instanceof Exception ex) {
                throw ex;
            }
            if (failure instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException("the body threw " + failure, failure);
        }

        /**
         * Passes the caller's interrupt to the started body (now, or as it begins to run; once it ended, the pending
         * mark is never read again).
         */
        private synchronized void passInterrupt() {
            if (runner != null) {
                runner.interrupt();
            } else {
                interruptPending = true;
            }
        }
    }
}
