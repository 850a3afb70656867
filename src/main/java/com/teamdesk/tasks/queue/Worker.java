package com.teamdesk.tasks.queue;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Consumer of one queue: fetches jobs, runs the {@link JobProcessor}, and moves each job on with one atomic
 * Lua script per transition, checking the job's lock token (R6).
 *
 * <p>All of the worker's work runs as tasks on the given executor, which must be able to run
 * {@link WorkerOptions#requiredThreads()} = {@code concurrency + 4} tasks at the same time: one per
 * processing slot, the fetch loop (blocks in Redis while the queue is empty), lock renewal, housekeeping
 * (stalled check, R6, and retention trim, R5) and the heartbeat (R22). The Redis client's pool must allow
 * {@link WorkerOptions#requiredConnections()} connections for this worker. If the executor runs fewer tasks
 * at once, claimed jobs wait in its queue (their locks are still renewed) and throughput drops.
 *
 * <p>Fetching never polls: while nothing is due the fetch loop blocks in {@code BZPOPMIN} on the queue's
 * marker, at most until the next delayed job is due (and at most {@value #MAX_BLOCK_MS} ms). A processing
 * slot that finishes a job fetches the next one in the same script, so a busy worker makes one round trip
 * per job.
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

    private static final Logger LOG = LoggerFactory.getLogger(Worker.class);
    private static final long ERROR_PAUSE_MS = 1_000;

    /** How late Redis may time out a blocking command with the default {@code hz 10}, in ms. */
    static final long REDIS_TIMEOUT_SLACK_MS = 100;

    private enum Phase { NEW, RUNNING, CLOSING, CLOSED }

    private final QueueStore store;
    private final WorkerOptions options;
    private final JobProcessor processor;
    private final ExecutorService executor;
    private final String workerId = UUID.randomUUID().toString();
    private final String wakeKey;
    private final List<WorkerListener> listeners = new CopyOnWriteArrayList<>();
    /** Executions whose locks the renewal loop extends, by job id. */
    private final Map<String, Execution> inFlight = new ConcurrentHashMap<>();
    /** Free processing slots; the fetch loop claims a job only while holding one. */
    private final Semaphore freeSlots;
    /** Guards {@link #busySlots}. */
    private final Object slotMonitor = new Object();
    /** Slots reserved by the fetch loop or processing a job; close() waits for 0. */
    private int busySlots;
    private final AtomicLong tokenSequence = new AtomicLong();
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.NEW);
    /** Released when close() begins: the fetch loop stops waiting for work. */
    private final CountDownLatch closing = new CountDownLatch(1);
    /** Released when the worker stops; the periodic loops wait on it instead of sleeping. */
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private final CountDownLatch loopsDone = new CountDownLatch(WorkerOptions.INTERNAL_TASKS);
    private volatile boolean lockRenewalEnabled = true;
    /** Permits ask the heartbeat loop to publish at once (a missing key, or close). */
    private final Semaphore beatRequests = new Semaphore(0);
    /** {@link System#nanoTime()} of the last successful heartbeat write; valid once {@link #beaten}. */
    private volatile long lastBeatNanos;
    private volatile boolean beaten;

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
        this.freeSlots = new Semaphore(options.concurrency());
        warnIfPoolTooSmall(redis, options);
    }

    private static void warnIfPoolTooSmall(UnifiedJedis redis, WorkerOptions options) {
        if (redis instanceof RedisClient client) {
            int maxTotal = client.getPool().getMaxTotal();
            if (maxTotal >= 0 && maxTotal < options.requiredConnections()) {
                LOG.warn("Redis pool allows {} connections but a worker with concurrency {} may use {}; "
                        + "slots will wait for connections", maxTotal, options.concurrency(),
                        options.requiredConnections());
            }
        }
    }

    /** @return this worker's random id, used in its heartbeat key and lock tokens */
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
        listeners.add(Objects.requireNonNull(l, "listener"));
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
        Runnable[] loops = {this::heartbeatLoop, this::fetchLoop, this::renewalLoop, this::housekeepingLoop};
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
            freeSlots.release(options.concurrency()); // a fetch loop waiting for a slot sees the phase and exits
            try {
                store.wake(wakeKey); // a fetch loop blocked in BZPOPMIN returns at once
            } catch (RuntimeException e) {
                LOG.warn("worker {}: could not wake the fetch loop; it exits within {} ms", workerId, MAX_BLOCK_MS, e);
            }
        }
        boolean finished = awaitIdleSlots(deadline);
        if (phase.getAndSet(Phase.CLOSED) != Phase.CLOSED) {
            stopSignal.countDown();
            beatRequests.release(); // the heartbeat loop waits on its requests, not on stopSignal
            if (!finished) {
                LOG.warn("worker {}: closed with jobs {} still running; their locks are no longer renewed and "
                        + "the stalled check will take them over", workerId, inFlight.keySet());
            }
        }
        try {
            long grace = Math.max(0, deadline - System.nanoTime()) + TimeUnit.SECONDS.toNanos(1);
            if (!loopsDone.await(grace, TimeUnit.NANOSECONDS)) {
                LOG.warn("worker {}: internal loops did not stop in time", workerId);
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

    /**
     * Test knob: when false, the locks of in-flight jobs are no longer extended, so they expire naturally
     * while the jobs still run.
     *
     * @param enabled whether lock renewal runs (default true)
     */
    public void setLockRenewalEnabled(boolean enabled) {
        this.lockRenewalEnabled = enabled;
    }

    /** @return true between {@link #start()} and the beginning of {@link #close(Duration)} */
    public boolean isRunning() {
        return phase.get() == Phase.RUNNING;
    }

    // ---- fetching and processing ------------------------------------------------------------------------

    private void fetchLoop() {
        try {
            while (phase.get() == Phase.RUNNING) {
                if (Thread.currentThread().isInterrupted()) {
                    LOG.error("worker {}: fetch loop interrupted (executor shut down?); no more jobs are taken",
                            workerId);
                    break;
                }
                freeSlots.acquireUninterruptibly();
                if (!reserveSlot()) {
                    break;
                }
                QueueStore.Fetch fetch;
                try {
                    fetch = store.moveToActive(newToken(), options.lockDurationMs());
                } catch (RuntimeException e) {
                    releaseSlot();
                    LOG.error("worker {}: fetching a job failed; retrying in {} ms", workerId, ERROR_PAUSE_MS, e);
                    awaitSignal(closing, ERROR_PAUSE_MS);
                    continue;
                }
                if (fetch.job() != null) {
                    dispatch(fetch.job());
                } else {
                    releaseSlot();
                    awaitWork(fetch.nextDueInMs());
                }
            }
        } finally {
            try {
                store.deleteKey(wakeKey);
            } catch (RuntimeException e) {
                LOG.warn("worker {}: could not delete its wake key {}", workerId, wakeKey, e);
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
            awaitSignal(closing, nextDueInMs);
            return;
        }
        long timeoutMs = nextDueInMs < 0 ? MAX_BLOCK_MS : Math.min(nextDueInMs - REDIS_TIMEOUT_SLACK_MS, MAX_BLOCK_MS);
        try {
            String popped = store.awaitMarker(timeoutMs, wakeKey);
            if (popped != null && !popped.equals(wakeKey) && phase.get() != Phase.RUNNING) {
                store.restoreMarker(); // leave the wake-up for a worker that will act on it
            }
        } catch (RuntimeException e) {
            LOG.error("worker {}: waiting for jobs failed; retrying in {} ms", workerId, ERROR_PAUSE_MS, e);
            awaitSignal(closing, ERROR_PAUSE_MS);
        }
    }

    private void dispatch(QueueStore.Claimed claimed) {
        Execution first = track(claimed);
        try {
            executor.execute(() -> runSlot(first));
        } catch (RejectedExecutionException e) {
            inFlight.remove(first.id());
            releaseSlot();
            LOG.error("worker {}: executor refused job {}; it is left to the stalled check", workerId, first.id(), e);
            awaitSignal(closing, ERROR_PAUSE_MS);
        }
    }

    /** One processing slot: runs a job, then each job fetched together with the previous outcome. */
    private void runSlot(Execution first) {
        try {
            Execution next = first;
            while (next != null) {
                next = processOne(next);
            }
        } finally {
            releaseSlot();
        }
    }

    /** Runs one execution and records its outcome; returns the next job fetched in the same round trip. */
    private Execution processOne(Execution exec) {
        Throwable error = null;
        try {
            processor.process(exec);
        } catch (Exception | Error e) {
            error = e;
        }
        inFlight.remove(exec.id(), exec); // the finishing script releases the lock
        String nextToken = phase.get() == Phase.RUNNING ? newToken() : null;
        QueueStore.Finish finish;
        String reason = null;
        try {
            if (error == null) {
                finish = store.complete(exec.id(), exec.token(), nextToken, options.lockDurationMs());
            } else {
                boolean unrecoverable = error instanceof UnrecoverableJobException;
                reason = reasonOf(error);
                long retryDelayMs = unrecoverable ? 0 : exec.backoff().delayMs(exec.attemptsMade() + 1);
                finish = store.fail(exec.id(), exec.token(), reason, unrecoverable, retryDelayMs, nextToken,
                        options.lockDurationMs());
            }
        } catch (RuntimeException e) {
            LOG.error("worker {}: could not record the outcome of job {}; it is left to the stalled check",
                    workerId, exec.id(), e);
            return null;
        }
        if (finish.lockLost()) {
            LOG.warn("worker {}: lock of job {} was lost; its outcome ({}) is dropped and the job is left to the "
                    + "stalled check", workerId, exec.id(), error == null ? "completed" : reason);
        } else if (error == null) {
            emit(l -> l.completed(exec.id(), exec.attemptsMade() + 1));
        } else {
            String why = reason;
            LOG.warn("worker {}: job {} failed (attemptsMade {}, exhausted {}): {}", workerId, exec.id(),
                    finish.attemptsMade(), finish.exhausted(), why, error);
            emit(l -> l.failed(exec.id(), finish.attemptsMade(), finish.exhausted(), why));
        }
        return finish.next() == null ? null : track(finish.next());
    }

    private Execution track(QueueStore.Claimed claimed) {
        Execution exec = new Execution(claimed);
        inFlight.put(exec.id(), exec);
        return exec;
    }

    /** The failed reason stored in Redis: the message, never a stack trace. */
    private static String reasonOf(Throwable error) {
        String message = error.getMessage();
        return message == null || message.isBlank() ? error.getClass().getName() : message;
    }

    private String newToken() {
        return workerId + ":" + tokenSequence.incrementAndGet();
    }

    private boolean reserveSlot() {
        synchronized (slotMonitor) {
            if (phase.get() != Phase.RUNNING) {
                return false;
            }
            busySlots++;
            return true;
        }
    }

    private void releaseSlot() {
        synchronized (slotMonitor) {
            busySlots--;
            slotMonitor.notifyAll();
        }
        freeSlots.release();
    }

    private boolean awaitIdleSlots(long deadline) {
        synchronized (slotMonitor) {
            while (busySlots > 0) {
                long waitMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (waitMs <= 0) {
                    return false;
                }
                try {
                    slotMonitor.wait(waitMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    // ---- periodic loops -----------------------------------------------------------------------------------

    /** R6: extends the locks of in-flight jobs every lockRenewMs, in one script for all of them. */
    private void renewalLoop() {
        while (!pause(options.lockRenewMs())) {
            if (!lockRenewalEnabled || inFlight.isEmpty()) {
                continue;
            }
            List<Execution> held = new ArrayList<>(inFlight.values());
            List<Map.Entry<String, String>> tokens = new ArrayList<>(held.size());
            for (Execution e : held) {
                tokens.add(new AbstractMap.SimpleImmutableEntry<>(e.id(), e.token()));
            }
            try {
                for (String lostId : store.extendLocks(tokens, options.lockDurationMs())) {
                    Execution e = inFlight.get(lostId);
                    if (e != null && held.contains(e)) { // not just finished
                        LOG.warn("worker {}: lock of job {} was lost while it ran; its outcome will be refused",
                                workerId, lostId);
                        inFlight.remove(lostId, e);
                    }
                }
            } catch (RuntimeException e) {
                LOG.error("worker {}: renewing locks failed; retrying in {} ms", workerId, options.lockRenewMs(), e);
            }
        }
    }

    /**
     * R6 stalled check and R5 retention trim, each once per interval across the queue's workers.
     *
     * <p>Each guard key is set inside the script, a few ms after this loop's clock reading. So that the worker's
     * own next attempt never finds its own guard alive (which made both run only every second interval), the
     * next attempt is scheduled from the clock reading taken after the script returned, and the guard lives
     * slightly shorter than the interval ({@link #guardTtlMs}).
     */
    private void housekeepingLoop() {
        long nextStalledCheck = System.nanoTime();
        long nextTrim = System.nanoTime();
        while (!pause(TimeUnit.NANOSECONDS.toMillis(Math.min(nextStalledCheck, nextTrim) - System.nanoTime()))) {
            if (System.nanoTime() - nextStalledCheck >= 0) {
                checkStalled();
                nextStalledCheck = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.stalledIntervalMs());
            }
            if (System.nanoTime() - nextTrim >= 0) {
                try {
                    int removed = store.trimRetention(guardTtlMs(options.retentionTrimIntervalMs()));
                    if (removed > 0) {
                        LOG.debug("worker {}: retention removed {} finished job records", workerId, removed);
                    }
                } catch (RuntimeException e) {
                    LOG.error("worker {}: retention trim failed", workerId, e);
                }
                nextTrim = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.retentionTrimIntervalMs());
            }
        }
    }

    /**
     * TTL of a housekeeping guard for a check run every {@code intervalMs}: the interval less 2 ms (Redis
     * compares expiry in whole ms) and 1 % (clock rate differences between this JVM and a remote Redis), so
     * the guard has always expired when its own worker comes back one interval later.
     */
    static long guardTtlMs(long intervalMs) {
        return Math.max(1, intervalMs - 2 - intervalMs / 100);
    }

    private void checkStalled() {
        List<QueueStore.Stalled> stalled;
        try {
            stalled = store.moveStalledJobs(options.maxStalledCount(), guardTtlMs(options.stalledIntervalMs()),
                    STALLED_REASON);
        } catch (RuntimeException e) {
            LOG.error("worker {}: stalled check failed", workerId, e);
            return;
        }
        for (QueueStore.Stalled s : stalled) {
            LOG.warn("worker {}: job {} stalled (lock expired while active); {}", workerId, s.id(),
                    s.failed() ? "failed: " + STALLED_REASON : "moved back to waiting");
            emit(l -> l.stalled(s.id()));
            if (s.failed()) {
                emit(l -> l.failed(s.id(), s.attemptsMade(), true, STALLED_REASON));
            }
        }
    }

    /**
     * R22: publishes the heartbeat every third of its TTL, and at once when asked ({@link #heartbeatPublished()}
     * found the key missing); deletes it when the worker stops.
     */
    private void heartbeatLoop() {
        String who = ManagementFactory.getRuntimeMXBean().getName();
        long startedAt = System.currentTimeMillis();
        long periodMs = Math.max(1, options.heartbeatTtlMs() / 3);
        do {
            try {
                store.heartbeat(workerId, options.heartbeatTtlMs(), info(who, startedAt, true).toJson());
                lastBeatNanos = System.nanoTime();
                beaten = true;
            } catch (RuntimeException e) {
                LOG.error("worker {}: heartbeat failed", workerId, e);
            }
        } while (!awaitBeatRequest(periodMs));
        try {
            store.removeHeartbeat(workerId, info(who, startedAt, false).toJson());
        } catch (RuntimeException e) {
            LOG.warn("worker {}: could not delete its heartbeat; it expires in {} ms", workerId,
                    options.heartbeatTtlMs(), e);
        }
    }

    private WorkerInfo info(String who, long startedAt, boolean live) {
        int busy;
        synchronized (slotMonitor) {
            busy = busySlots;
        }
        return new WorkerInfo(workerId, who, startedAt, options.concurrency(), busy, System.currentTimeMillis(), live);
    }

    /** Waits up to {@code ms} for a beat request; @return true when the worker stopped. */
    private boolean awaitBeatRequest(long ms) {
        try {
            if (beatRequests.tryAcquire(ms, TimeUnit.MILLISECONDS)) {
                beatRequests.drainPermits(); // requests that came meanwhile are answered by this one beat
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
        return stopSignal.getCount() == 0;
    }

    /**
     * R22 liveness of this worker judged by itself, as its own server's health check should: it runs, and its
     * last successful heartbeat write is younger than the heartbeat TTL. Read from memory, so a heartbeat key
     * lost with Redis's data does not make every instance look dead at once.
     *
     * @return true while running with a heartbeat written within {@link WorkerOptions#heartbeatTtlMs()}
     */
    public boolean isLive() {
        return isRunning() && beaten
                && System.nanoTime() - lastBeatNanos < TimeUnit.MILLISECONDS.toNanos(options.heartbeatTtlMs());
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
            beatRequests.release();
        }
        return published;
    }

    /** Waits up to {@code ms} for the stop signal; @return true when the worker stopped. */
    private boolean pause(long ms) {
        return awaitSignal(stopSignal, ms);
    }

    private static boolean awaitSignal(CountDownLatch signal, long ms) {
        try {
            return signal.await(Math.max(0, ms), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    private void emit(Consumer<WorkerListener> event) {
        for (WorkerListener l : listeners) {
            try {
                event.accept(l);
            } catch (RuntimeException | Error e) { // R21: a listener never breaks the worker or other listeners
                if (e instanceof VirtualMachineError vme) {
                    throw vme;
                }
                LOG.warn("worker {}: listener {} threw", workerId, l, e);
            }
        }
    }

    /** One execution of a job as the processor sees it. */
    private final class Execution implements Job {
        private final QueueStore.Claimed claimed;

        Execution(QueueStore.Claimed claimed) {
            this.claimed = claimed;
        }

        @Override
        public String id() {
            return claimed.id();
        }

        @Override
        public String data() {
            return claimed.data();
        }

        @Override
        public int attemptsMade() {
            return claimed.attemptsMade();
        }

        @Override
        public int attemptsStarted() {
            return claimed.attemptsStarted();
        }

        @Override
        public String workerId() {
            return workerId;
        }

        String token() {
            return claimed.token();
        }

        Backoff backoff() {
            return claimed.backoff();
        }

        @Override
        public void updateProgress(int percent) {
            if (percent < 0 || percent > 100) {
                throw new IllegalArgumentException("percent must be 0-100: " + percent);
            }
            if (!store.updateProgress(id(), token(), percent)) {
                throw new LockLostException("lock of job " + id() + " is no longer held by this execution; "
                        + "progress " + percent + " was not recorded");
            }
            emit(l -> l.progress(id(), percent));
        }

        @Override
        public String toString() {
            return "Job[" + id() + ", attemptsMade=" + attemptsMade() + "]";
        }
    }
}
