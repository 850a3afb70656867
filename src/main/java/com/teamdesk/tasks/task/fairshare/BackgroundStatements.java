package com.teamdesk.tasks.task.fairshare;

import com.teamdesk.tasks.task.spi.StatementPermits;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * R48 (issue 30): a bulkhead for the database statements of background bodies. At most
 * {@code teamdesk.worker.background-statements} statements of background executions (exports) run in PostgreSQL at
 * once on this instance (default: the JVM's available processors; {@code 0} means no bound). A background body takes
 * a permit ({@link #begin()}) before each statement that starts new work (the points where R47 yields: its permission
 * and count, each batch's {@code COPY}, its permission re-check, its result write) and gives it back when the
 * statement is done, so eight export slots on a 2-core machine keep eight exports in flight but only two of them
 * running statements: the other six wait in the JVM, off the CPU, instead of queuing in PostgreSQL's run queue in
 * front of an urgent request's statements (R46 can lower the JVM's threads, not the database's backends).
 *
 * <p>Permits are handed out in arrival order (a fair semaphore), so no export starves; a statement already running
 * is never stopped; a waiting body is not an attempt and changes nothing of its execution's rules (its lease is
 * renewed by the worker meanwhile). An interrupt (a cancel, R26's timeout) ends the wait at once and stays set, so
 * the body's next lease check sees it; the statement then runs without a permit. Only background bodies take
 * permits: requests, urgent executions, the engine's own statements and the chunk stores of large exports never
 * wait here. The bound is this instance's: two instances run up to twice as many.
 */
@ApplicationScoped
public class BackgroundStatements implements StatementPermits {

    @Inject
    @ConfigProperty(name = "teamdesk.worker.background-statements", defaultValue = "-1")
    int configured;

    @Inject
    UrgentWork urgent;

    private Semaphore permits;
    private int bound;
    private final AtomicLong waits = new AtomicLong();
    private final AtomicLong waitedNanos = new AtomicLong();

    @PostConstruct
    void init() {
        bound = configured < 0 ? Runtime.getRuntime().availableProcessors() : configured;
        permits = bound > 0 ? new Semaphore(bound, true) : null;
    }

    /**
     * Called by a background body right before a database statement that starts new work: waits for one of the
     * bound's permits (in arrival order), then yields to urgent work (R47), and returns the permit to close when the
     * statement is done (try-with-resources). Returns at once when the bound is off.
     *
     * @return the permit; never null
     */
    @Override
    public Permit begin() {
        Permit permit = Permit.NONE;
        if (permits != null) {
            try {
                // tryAcquire() would barge past the bodies already waiting; the timed form keeps the fair order
                if (!permits.tryAcquire(0, TimeUnit.NANOSECONDS)) {
                    long start = System.nanoTime();
                    try {
                        permits.acquire();
                    } finally {
                        waits.incrementAndGet();
                        waitedNanos.addAndGet(System.nanoTime() - start);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Permit.NONE;
            }
            AtomicBoolean closed = new AtomicBoolean();
            permit = () -> {
                if (closed.compareAndSet(false, true)) {
                    permits.release();
                }
            };
        }
        try {
            urgent.yieldToUrgent(); // after the permit's wait: the check nearest the statement
        } catch (RuntimeException | Error e) {
            permit.close();
            throw e;
        }
        return permit;
    }

    /** @return the bound in force (0: none) */
    public int bound() {
        return bound;
    }

    /** @return background statements holding a permit now (0 when the bound is off) */
    public int running() {
        return permits == null ? 0 : bound - permits.availablePermits();
    }

    /** @return background bodies waiting for a permit now (the semaphore's queue) */
    public int waiting() {
        return permits == null ? 0 : permits.getQueueLength();
    }

    /** @return how many times a background statement waited for a permit since start */
    public long waits() {
        return waits.get();
    }

    /** @return the time background statements waited for a permit since start, in nanoseconds */
    public long waitedNanos() {
        return waitedNanos.get();
    }
}
