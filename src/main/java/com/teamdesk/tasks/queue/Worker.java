package com.teamdesk.tasks.queue;

import java.time.Duration;
import java.util.concurrent.ExecutorService;

import redis.clients.jedis.UnifiedJedis;

/**
 * Consumer of one queue: fetches jobs, runs the {@link JobProcessor}, and moves each job on with one atomic
 * Lua script per transition, checking the job's lock token (R6).
 *
 * <p>All of the worker's work runs as tasks on the given executor, which must be able to run
 * {@link WorkerOptions#requiredThreads()} = {@code concurrency + 4} tasks at the same time: one per
 * processing slot, the fetch loop (blocks in Redis while the queue is empty), lock renewal, housekeeping
 * (stalled check, R6, and retention trim, R5) and the heartbeat (R22). The Redis client's pool must allow
 * {@link WorkerOptions#requiredConnections()} connections for this worker.
 */
public final class Worker implements AutoCloseable {

    /**
     * Creates a stopped worker; call {@link #start()}.
     *
     * @param redis     a pooled client such as {@code redis.clients.jedis.RedisClient}; not closed by the worker
     * @param prefix    key prefix
     * @param queueName queue name
     * @param options   worker settings
     * @param processor the code run for each job
     * @param executor  runs every worker task; not shut down by the worker (may be container-managed)
     * @throws IllegalArgumentException if a name is invalid
     * @throws NullPointerException     if an argument is null
     */
    public Worker(UnifiedJedis redis, String prefix, String queueName, WorkerOptions options,
                  JobProcessor processor, ExecutorService executor) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** @return this worker's random id, used in its heartbeat key and lock tokens */
    public String workerId() {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /**
     * Adds a listener; may be called before or after {@link #start()}.
     *
     * @param l the listener
     * @throws NullPointerException if {@code l} is null
     */
    public void addListener(WorkerListener l) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /**
     * Starts fetching and processing jobs, renewing locks, the stalled check, retention trim and heartbeat.
     *
     * @throws IllegalStateException if already started or closed
     * @throws java.util.concurrent.RejectedExecutionException if the executor refuses the worker's tasks
     */
    public void start() {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /**
     * Graceful shutdown (R22): stops taking jobs at once, keeps renewing the locks of in-flight jobs while
     * waiting up to {@code timeout} for them to finish, then stops all worker tasks and deletes the
     * heartbeat. Jobs still running at the deadline are abandoned: their locks are no longer renewed and
     * expire, and the stalled check (of any worker) takes them over. Idempotent.
     *
     * @param timeout grace period for in-flight jobs
     * @return true if no job was in flight when it returned
     */
    public boolean close(Duration timeout) {
        throw new UnsupportedOperationException("not implemented yet");
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
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** @return true between {@link #start()} and the beginning of {@link #close(Duration)} */
    public boolean isRunning() {
        throw new UnsupportedOperationException("not implemented yet");
    }
}
