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
 * {@link WorkerOptions#requiredThreads()} = {@code concurrency + 4} tasks at the same time: one per
 * processing slot, the fetch loop (this class; blocks in Redis while the queue is empty), {@link LockRenewal},
 * {@link Housekeeping} (stalled check, R6, and retention trim, R5) and the {@link Heartbeat} (R22). The Redis
 * client's pool must allow {@link WorkerOptions#requiredConnections()} connections for this worker. If the
 * executor runs fewer tasks at once, fetched jobs wait in its queue (their locks are still renewed) and
 * throughput drops.
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
 */
public final class Worker implements AutoCloseable {

    /** Longest single blocking wait of the fetch loop, in ms (self-heals a lost wake-up marker). */
    static final long MAX_BLOCK_MS = 5_000;

    /** Failed reason of a job that stalled more than {@link WorkerOptions#maxStalledCount()} times. */
    static final String STALLED_REASON = "job stalled more than allowable limit";

    /** How late Redis may time out a blocking command with the default {@code hz 10}, in ms. */
    static final long REDIS_TIMEOUT_SLACK_MS = 100;

    private static final Logger LOG = Logger.getLogger(Worker.class.getName());
    private static final long ERROR_PAUSE_MS = 1_000;
    /** Longest single wait of the fetch loop at a closed {@link FetchGate}, in ms. */
    private static final long GATE_WAIT_MS = 1_000;

    private enum Phase { NEW, RUNNING, CLOSING, CLOSED }

    private final QueueStore store;
    private final WorkerOptions options;
    private final JobProcessor processor;
    private final ExecutorService executor;
    private final String workerId = UUID.randomUUID().toString();
    private final String wakeKey;
    private final WorkerListeners listeners = new WorkerListeners(workerId);
    private final SlotPool slots;
    private final Completer completer;
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
    private final CountDownLatch loopsDone = new CountDownLatch(WorkerOptions.INTERNAL_TASKS);
    private final LockRenewal lockRenewal;
    private final Housekeeping housekeeping;
    private final Heartbeat heartbeat;
    private volatile FetchGate fetchGate = maxWaitMs -> true;
    private final OutageLog redisOutage;
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
        this.processor = Objects.requireNonNull(processor, "processor");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.wakeKey = store.keys().wake(workerId);
        this.slots = new SlotPool(options.concurrency());
        this.completer = new Completer(store, options.lockDurationMs());
        this.redisOutage = new OutageLog(LOG, "worker " + workerId + ": Redis");
        this.scope = new WorkerScope(store, options, workerId, stopSignal, redisOutage);
        this.lockRenewal = new LockRenewal(scope);
        this.housekeeping = new Housekeeping(scope, listeners);
        this.heartbeat = new Heartbeat(scope, slots::busy);
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
        this.fetchGate = Objects.requireNonNull(gate, "gate");
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
        Runnable[] loops = {heartbeat, this::fetchLoop, lockRenewal, housekeeping};
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
            for (int i = 0; i < WorkerOptions.INTERNAL_TASKS; i++) {
                loopsDone.countDown(); // never started
            }
            return true;
        }
        if (phase.compareAndSet(Phase.RUNNING, Phase.CLOSING)) {
            closing.countDown();
            slots.close(); // a fetch loop waiting for a slot returns and exits
            try {
                store.wake(wakeKey); // a fetch loop blocked in BZPOPMIN returns at once
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, e, () -> "worker " + workerId + ": could not wake the fetch loop; it exits within "
                        + MAX_BLOCK_MS + " ms");
            }
        }
        boolean finished = slots.awaitIdle(deadline);
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

    // ---- the fetch loop and the processing slots --------------------------------------------------------

    private void fetchLoop() {
        try {
            while (phase.get() == Phase.RUNNING) {
                if (Thread.currentThread().isInterrupted()) {
                    LOG.severe(() -> "worker " + workerId + ": fetch loop interrupted (executor shut down?); "
                            + "no more jobs are taken");
                    break;
                }
                if (!gateOpen()) {
                    continue; // the gate is closed: asked again (the loop ends when the worker closes)
                }
                if (!slots.take()) {
                    continue; // closed (the loop ends) or interrupted (logged above)
                }
                QueueStore.Fetch fetch;
                try {
                    fetch = store.moveToActive(newToken(), options.lockDurationMs());
                    redisOutage.ended();
                } catch (RuntimeException e) {
                    slots.giveBack();
                    scope.loopFailed(LOG, e, "fetching jobs (retried every " + ERROR_PAUSE_MS + " ms)");
                    Waits.await(closing, ERROR_PAUSE_MS);
                    continue;
                }
                if (fetch.job() != null) {
                    runInNewSlot(fetch.job());
                } else {
                    slots.giveBack();
                    awaitWork(fetch.nextDueInMs());
                }
            }
        } finally {
            try {
                store.deleteKey(wakeKey);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, e, () -> "worker " + workerId + ": could not delete its wake key " + wakeKey);
            }
        }
    }

    /**
     * Blocks until a marker announces work, this worker is woken, or the next delayed job is due. Redis
     * times out blocking commands only about {@code hz} times a second (every 100 ms by default), so Redis
     * blocks until shortly before the due time and the last stretch is waited here, which keeps retries
     * and delays on time; a job added during that stretch (at most {@value #REDIS_TIMEOUT_SLACK_MS} ms) waits
     * for it to end.
     */
    private void awaitWork(long nextDueInMs) {
        if (nextDueInMs >= 0 && nextDueInMs <= REDIS_TIMEOUT_SLACK_MS) {
            Waits.await(closing, nextDueInMs);
            return;
        }
        long timeoutMs = nextDueInMs < 0 ? MAX_BLOCK_MS : Math.min(nextDueInMs - REDIS_TIMEOUT_SLACK_MS, MAX_BLOCK_MS);
        try {
            String popped = store.awaitMarker(timeoutMs, wakeKey);
            redisOutage.ended();
            if (popped != null && !popped.equals(wakeKey) && phase.get() != Phase.RUNNING) {
                store.restoreMarker(); // leave the wake-up for a worker that will act on it
            }
        } catch (RuntimeException e) {
            scope.loopFailed(LOG, e, "waiting for jobs (retried every " + ERROR_PAUSE_MS + " ms)");
            Waits.await(closing, ERROR_PAUSE_MS);
        }
    }

    /** Asks the fetch gate, at most {@value #GATE_WAIT_MS} ms at a time so that close() is seen promptly. */
    private boolean gateOpen() {
        try {
            if (fetchGate.awaitOpen(GATE_WAIT_MS)) {
                return true;
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, e, () -> "worker " + workerId + ": the fetch gate failed; fetching anyway");
            return true;
        }
        return false;
    }

    /** Hands a job the fetch loop fetched (holding a slot) to a new slot task. */
    private void runInNewSlot(QueueStore.FetchedJob fetched) {
        RunningJob first = track(fetched);
        try {
            executor.execute(() -> runSlot(first));
        } catch (RejectedExecutionException e) {
            lockRenewal.untrack(first);
            slots.giveBack();
            LOG.log(Level.SEVERE, e, () -> "worker " + workerId + ": executor refused job " + first.id()
                    + "; it is left to the stalled check");
            Waits.await(closing, ERROR_PAUSE_MS);
        }
    }

    /** One processing slot: runs a job, then each job fetched together with the previous outcome. */
    private void runSlot(RunningJob first) {
        try {
            RunningJob next = first;
            while (next != null) {
                next = processOne(next);
            }
        } finally {
            slots.giveBack();
        }
    }

    /** Runs one execution and records its outcome; returns the next job fetched in the same round trip. */
    private RunningJob processOne(RunningJob job) {
        Throwable error = null;
        try {
            processor.process(job);
        } catch (Exception | Error e) {
            error = e;
        }
        lockRenewal.untrack(job); // the finishing script releases the lock
        if (error instanceof JobDeferredException deferred) {
            defer(job, deferred);
            return null; // the slot goes back: the fetch loop asks the fetch gate before it takes more work
        }
        String nextToken = phase.get() == Phase.RUNNING ? newToken() : null;
        QueueStore.Finish finish;
        String reason = null;
        try {
            if (error == null) {
                finish = completer.complete(job.fetched(), job.progressOnCompletion(), nextToken);
            } else {
                boolean unrecoverable = error instanceof UnrecoverableJobException;
                reason = reasonOf(error);
                long retryDelayMs = unrecoverable ? 0 : job.fetched().backoff().delayMs(job.attemptsMade() + 1);
                finish = store.fail(job.fetched(), reason, unrecoverable, retryDelayMs, nextToken,
                        options.lockDurationMs());
            }
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, e, () -> "worker " + workerId + ": could not record the outcome of job " + job.id()
                    + "; it is left to the stalled check");
            return null;
        }
        if (finish.lockLost()) {
            String outcome = error == null ? "completed" : reason;
            LOG.warning(() -> "worker " + workerId + ": lock of job " + job.id() + " was lost; its outcome ("
                    + outcome + ") is dropped and the job is left to the stalled check");
        } else if (error == null) {
            int progress = job.progressOnCompletion();
            if (progress >= 0) {
                listeners.emit(l -> l.progress(job.id(), progress));
            }
            listeners.emit(l -> l.completed(job.id(), job.attemptsMade() + 1));
        } else {
            String why = reason;
            LOG.log(Level.WARNING, error, () -> "worker " + workerId + ": job " + job.id() + " failed (attemptsMade "
                    + finish.attemptsMade() + ", exhausted " + finish.exhausted() + "): " + why);
            listeners.emit(l -> l.failed(job.id(), finish.attemptsMade(), finish.exhausted(), why));
        }
        return finish.next() == null ? null : track(finish.next());
    }

    /** Issue 28: back to delayed under the lock, no attempt counted; a lost lock leaves it to the stalled check. */
    private void defer(RunningJob job, JobDeferredException deferred) {
        String reason = reasonOf(deferred);
        boolean moved;
        try {
            moved = store.defer(job.fetched(), deferred.delayMs(), reason);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, e, () -> "worker " + workerId + ": could not defer job " + job.id()
                    + "; it is left to the stalled check");
            return;
        }
        if (!moved) {
            LOG.warning(() -> "worker " + workerId + ": lock of job " + job.id() + " was lost; its deferral is dropped"
                    + " and the job is left to the stalled check");
            return;
        }
        listeners.emit(l -> l.deferred(job.id(), deferred.delayMs(), reason));
    }

    private RunningJob track(QueueStore.FetchedJob fetched) {
        RunningJob job = new RunningJob(fetched, workerId, store, listeners);
        lockRenewal.track(job);
        return job;
    }

    /** The failed reason stored in Redis: the message, never a stack trace. */
    private static String reasonOf(Throwable error) {
        String message = error.getMessage();
        return message == null || message.isBlank() ? error.getClass().getName() : message;
    }

    private String newToken() {
        return tokenPrefix + ":" + Long.toString(tokenSequence.incrementAndGet(), 36);
    }
}
