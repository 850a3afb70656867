package com.teamdesk.tasks.queue;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Consumer of one queue: fetches jobs, runs the {@link JobProcessor}, and moves each job on with one atomic
 * Lua script per transition, checking the job's lock token (R6).
 *
 * <p>All of the worker's work runs as tasks on the given executor, which must be able to run
 * {@link WorkerOptions#requiredThreads()} = {@code concurrency + 4} tasks at the same time (5 with reserved slots): one per
 * processing slot ({@link ProcessingSlots}), the {@link FetchLoop} (blocks in Redis while the queue is empty), {@link LockRenewal},
 * {@link Housekeeping} (stalled check, R6, and retention trim, R5) and the {@link Heartbeat} (R22). The Redis
 * client's pool must allow {@link WorkerOptions#requiredConnections()} connections for this worker. If the
 * executor runs fewer tasks at once, fetched jobs wait in its queue (their locks are still renewed) and
 * throughput drops.
 *
 * <p>Reserved slots (issue 30, R42, {@link WorkerOptions#reservedSlots()} = R &gt; 0): of the {@code concurrency}
 * slots, {@code concurrency - R} are general (any job, as above) and R are reserved: a second {@link FetchLoop}, the
 * reserved loop, fills them only with jobs of priority {@code >= }{@link WorkerOptions#reservedMinPriority()} and
 * blocks on the urgent marker; a reserved slot that finishes a job fetches nothing in the same script (its loop
 * fetches the next qualifying one), so a reserved slot never holds a lower job. One more internal task then.
 *
 * <p>Fetching never polls: while nothing is due the fetch loop blocks in {@code BZPOPMIN} on the queue's
 * marker, at most until the next delayed job is due (and at most {@value #MAX_BLOCK_MS} ms). A processing
 * slot that finishes a job fetches the next one in the same script, so a busy worker makes at most one
 * round trip per job; completions that finish together share one round trip ({@link Completer}).
 *
 * <p>Processor outcome: returning completes the job; {@link UnrecoverableJobException} fails it for good;
 * any other exception (or error) fails this execution and retries per the job's attempts and backoff (R4).
 * If a transition finds the lock lost (R6), nothing moves: the outcome is logged and dropped and the job is
 * left to the stalled check.
 *
 * <p>Why one class of about 330 lines: it owns the worker's lifecycle (start, pause, close with a grace period) and the
 * parts it wires together share it; the loops themselves are files of their own ({@link FetchLoop},
 * {@link ProcessingSlots}, {@link Housekeeping}, {@link LockRenewal}, {@link Heartbeat}).
 */
public final class Worker implements AutoCloseable {

    /** Longest single blocking wait of the fetch loop, in ms (self-heals a lost wake-up marker). */
    static final long MAX_BLOCK_MS = FetchLoop.MAX_BLOCK_MS;

    private static final Logger LOG = Logger.getLogger(Worker.class.getName());

    private enum Phase { NEW, RUNNING, CLOSING, CLOSED }

    private final QueueStore store;
    private final WorkerOptions options;
    private final ExecutorService executor;
    private final String workerId = UUID.randomUUID().toString();
    private final String wakeKey;
    private final WorkerListeners listeners = new WorkerListeners(workerId);
    private final SlotPool slots;
    /** The reserved slots (R42), or null when there are none. */
    private final SlotPool reservedSlots;
    /**
     * The random part of this worker's lock tokens (63 bits, base 36): shorter than the worker id, so that a
     * lock value (token, '@', fetch time) stays within the 44 bytes Redis stores in one allocation (issue 16).
     */
    private final String tokenPrefix = Long.toString(new SecureRandom().nextLong() & Long.MAX_VALUE, 36);
    private final AtomicLong tokenSequence = new AtomicLong();
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.NEW);
    /** Released when close() begins: the fetch loop stops waiting for work. */
    private final CountDownLatch closing = new CountDownLatch(1);
    /** Released when the worker stops; the periodic loops wait on it instead of sleeping. */
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private final CountDownLatch loopsDone;
    private final LockRenewal lockRenewal;
    private final Housekeeping housekeeping;
    private final Heartbeat heartbeat;
    private final FetchLoop fetchLoop;
    /** The reserved slots' fetch loop (R42), or null when there are none. */
    private final FetchLoop reservedLoop;
    private final String reservedWakeKey;
    private final WorkerScope scope;

    /**
     * Creates a stopped worker; call {@link #start()}.
     *
     * @param redis     a pooled client such as {@code redis.clients.jedis.RedisClient}; not closed by the worker
     * @param prefix    key prefix
     * @param queueName queue name
     * @param options   worker settings
     * @param processor the code run for each job
     * @param executor  runs every worker task; not shut down by the worker (may be container-managed)
     * @throws IllegalArgumentException if a name is invalid, or {@code options.lockRenewMs() >= options.lockDurationMs()}
     * @throws NullPointerException     if an argument is null
     */
    public Worker(UnifiedJedis redis, String prefix, String queueName, WorkerOptions options,
                  JobProcessor processor, ExecutorService executor) {
        this.store = new QueueStore(redis, new QueueKeys(prefix, queueName));
        this.options = Objects.requireNonNull(options, "options");
        if (options.lockRenewMs() >= options.lockDurationMs()) {
            throw new IllegalArgumentException("lockRenewMs (" + options.lockRenewMs()
                    + ") must be below lockDurationMs (" + options.lockDurationMs() + ") or locks expire");
        }
        this.executor = Objects.requireNonNull(executor, "executor");
        this.wakeKey = store.keys().wake(workerId);
        this.reservedWakeKey = store.keys().wake(workerId + ":reserved");
        this.loopsDone = new CountDownLatch(options.internalTasks());
        int reserved = options.reservedSlots();
        this.slots = new SlotPool(options.concurrency() - reserved);
        this.reservedSlots = reserved > 0 ? new SlotPool(reserved) : null;
        OutageLog redisOutage = new OutageLog(LOG, "worker " + workerId + ": Redis");
        this.scope = new WorkerScope(store, options, workerId, stopSignal, redisOutage);
        this.lockRenewal = new LockRenewal(scope);
        this.housekeeping = new Housekeeping(scope, listeners);
        this.heartbeat = new Heartbeat(scope, this::busySlots);
        Completer completer = new Completer(store, options.lockDurationMs());
        ProcessingSlots processing = new ProcessingSlots(scope, processor, executor, slots, completer, lockRenewal,
                listeners, closing, () -> phase.get() == Phase.RUNNING ? newToken() : null);
        this.fetchLoop = new FetchLoop(scope, slots, processing, closing, wakeKey,
                () -> phase.get() == Phase.RUNNING, this::newToken, 0);
        if (reservedSlots != null) {
            // no fetch-next: the reserved loop fills a freed reserved slot, and only with a qualifying job
            ProcessingSlots reservedProcessing = new ProcessingSlots(scope, processor, executor, reservedSlots,
                    completer, lockRenewal, listeners, closing, () -> null);
            this.reservedLoop = new FetchLoop(scope, reservedSlots, reservedProcessing, closing, reservedWakeKey,
                    () -> phase.get() == Phase.RUNNING, this::newToken, options.reservedMinPriority());
        } else {
            this.reservedLoop = null;
        }
        warnIfPoolTooSmall(redis, options);
    }

    private static void warnIfPoolTooSmall(UnifiedJedis redis, WorkerOptions options) {
        if (redis instanceof RedisClient client) {
            int maxTotal = client.getPool().getMaxTotal();
            if (maxTotal >= 0 && maxTotal < options.requiredConnections()) {
                LOG.warning(() -> "Redis pool allows " + maxTotal + " connections but a worker with concurrency "
                        + options.concurrency() + " may use " + options.requiredConnections()
                        + "; slots will wait for connections");
            }
        }
    }

    /**
     * Sets the gate the fetch loop asks before it takes a new job (issue 28: a processor whose own store is
     * unreachable stops the worker from fetching jobs it could not run). Default: always open. May be set
     * before or after {@link #start()}.
     *
     * @param gate the gate
     * @throws NullPointerException if {@code gate} is null
     */
    public void setFetchGate(FetchGate gate) {
        fetchLoop.setGate(gate);
        if (reservedLoop != null) {
            reservedLoop.setGate(gate);
        }
    }

    /** @return the slots busy now, general and reserved */
    private int busySlots() {
        return slots.busy() + (reservedSlots == null ? 0 : reservedSlots.busy());
    }

    /** @return the fetch scripts the general loop (false) or the reserved loop (true, 0 without one) has called */
    long fetchCalls(boolean reserved) {
        FetchLoop loop = reserved ? reservedLoop : fetchLoop;
        return loop == null ? 0 : loop.fetches();
    }

    /** @return this worker's random id, used in its heartbeat key */
    public String workerId() {
        return workerId;
    }

    /**
     * Adds a listener; may be called before or after {@link #start()}.
     *
     * @param l the listener
     * @throws NullPointerException if {@code l} is null
     */
    public void addListener(WorkerListener l) {
        listeners.add(l);
    }

    /**
     * Starts fetching and processing jobs, renewing locks, the stalled check, retention trim and heartbeat.
     * Does not wait for Redis: the first heartbeat and fetch happen on the executor.
     *
     * @throws IllegalStateException if already started or closed
     * @throws RejectedExecutionException if the executor refuses the worker's tasks (the worker is then closed)
     */
    public void start() {
        if (!phase.compareAndSet(Phase.NEW, Phase.RUNNING)) {
            throw new IllegalStateException("worker " + workerId + " was already started");
        }
        Runnable[] loops = reservedLoop == null ? new Runnable[] {heartbeat, fetchLoop, lockRenewal, housekeeping}
                : new Runnable[] {heartbeat, fetchLoop, lockRenewal, housekeeping, reservedLoop};
        int submitted = 0;
        try {
            for (Runnable loop : loops) {
                executor.execute(() -> {
                    try {
                        loop.run();
                    } finally {
                        loopsDone.countDown();
                    }
                });
                submitted++;
            }
        } catch (RejectedExecutionException e) {
            for (int i = submitted; i < loops.length; i++) {
                loopsDone.countDown();
            }
            close(Duration.ZERO);
            throw e;
        }
    }

    /**
     * Graceful shutdown (R22): stops taking jobs at once, keeps renewing the locks of in-flight jobs while
     * waiting up to {@code timeout} for them to finish, then stops all worker tasks and deletes the
     * heartbeat. Jobs still running at the deadline are abandoned: their locks are no longer renewed and
     * expire, and the stalled check (of any worker) takes them over; their later outcome is refused as a
     * lost lock. Returns at most about one second after the timeout (stopping the worker's own loops).
     * Idempotent.
     *
     * @param timeout grace period for in-flight jobs
     * @return true if no job was in flight when it returned
     * @throws NullPointerException if {@code timeout} is null
     */
    public boolean close(Duration timeout) {
        long deadline = System.nanoTime() + Objects.requireNonNull(timeout, "timeout").toNanos();
        if (phase.compareAndSet(Phase.NEW, Phase.CLOSED)) {
            for (int i = 0; i < options.internalTasks(); i++) {
                loopsDone.countDown(); // never started
            }
            return true;
        }
        if (phase.compareAndSet(Phase.RUNNING, Phase.CLOSING)) {
            closing.countDown();
            slots.close(); // a fetch loop waiting for a slot returns and exits
            if (reservedSlots != null) {
                reservedSlots.close();
            }
            try {
                store.wake(wakeKey); // a fetch loop blocked in BZPOPMIN returns at once
                if (reservedLoop != null) {
                    store.wake(reservedWakeKey);
                }
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, e, () -> "worker " + workerId + ": could not wake the fetch loop; it exits within "
                        + MAX_BLOCK_MS + " ms");
            }
        }
        boolean finished = slots.awaitIdle(deadline) & (reservedSlots == null || reservedSlots.awaitIdle(deadline));
        if (phase.getAndSet(Phase.CLOSED) != Phase.CLOSED) {
            stopSignal.countDown();
            heartbeat.requestBeat(); // the heartbeat loop waits on its requests, not on stopSignal
            if (!finished) {
                LOG.warning(() -> "worker " + workerId + ": closed with jobs " + lockRenewal.runningIds()
                        + " still running; their locks are no longer renewed and the stalled check will take them over");
            }
        }
        try {
            long grace = Math.max(0, deadline - System.nanoTime()) + TimeUnit.SECONDS.toNanos(1);
            if (!loopsDone.await(grace, TimeUnit.NANOSECONDS)) {
                LOG.warning(() -> "worker " + workerId + ": internal loops did not stop in time");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return finished;
    }

    /** {@link #close(Duration)} with a 30 s grace period. */
    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }

    /** @return true between {@link #start()} and the beginning of {@link #close(Duration)} */
    public boolean isRunning() {
        return phase.get() == Phase.RUNNING;
    }

    /**
     * R22 liveness of this worker judged by itself, as its own server's health check should: it runs, and its
     * last successful heartbeat write is younger than the heartbeat TTL. Read from memory, so a heartbeat key
     * lost with Redis's data does not make every instance look dead at once.
     *
     * @return true while running with a heartbeat written within {@link WorkerOptions#heartbeatTtlMs()}
     */
    public boolean isLive() {
        return isRunning() && heartbeat.recent();
    }

    /**
     * R22: whether this worker's heartbeat key exists in Redis. When it is missing while the worker runs (Redis
     * lost its data, or the key was deleted), asks the heartbeat loop to publish it again at once instead of at
     * its next period; does not wait for that write.
     *
     * @return true if the key exists
     * @throws redis.clients.jedis.exceptions.JedisException on a Redis error
     */
    public boolean heartbeatPublished() {
        boolean published = store.exists(store.keys().worker(workerId));
        if (!published && isRunning()) {
            heartbeat.requestBeat();
        }
        return published;
    }

    private String newToken() {
        return tokenPrefix + ":" + Long.toString(tokenSequence.incrementAndGet(), 36);
    }
}
