package com.teamdesk.tasks.queue;

/**
 * What a {@link JobProcessor} sees of one execution of a job. Valid only during that execution.
 */
public interface Job {

    /** @return the job id */
    String id();

    /** @return the opaque payload given when the job was added */
    String data();

    /**
     * @return executions of this job that ended in an error before this one: 0 on the first execution,
     *         1 on the first retry, ... (the attempt number is {@code attemptsMade() + 1}, R3)
     */
    int attemptsMade();

    /** @return executions started so far, this one and stalled ones included (1 on the first execution) */
    int attemptsStarted();

    /**
     * @return the id of the worker running this execution (its heartbeat id, R22), or null when the job is
     *         not run by a {@link Worker} (tests and tools)
     */
    default String workerId() {
        return null;
    }

    /**
     * Records progress on the job, checking atomically (one Lua script) that this execution still holds
     * the job's lock (R6), then notifies the worker's listeners ({@link WorkerListener#progress}).
     *
     * @param percent progress in percent, 0-100
     * @throws IllegalArgumentException if {@code percent} is outside 0-100
     * @throws LockLostException        if the lock expired or was taken over by another execution; nothing
     *                                  was written
     * @throws redis.clients.jedis.exceptions.JedisException on a Redis error
     */
    void updateProgress(int percent);

    /**
     * Records {@code percent} as the job's progress together with this execution's completion, in the
     * completion's own script, so that a final progress report costs no round trip (issue 16). Nothing is
     * sent now: when the processor then returns, the completion writes the progress under the job's lock
     * (R6) and the listeners hear {@link WorkerListener#progress} just before {@link WorkerListener#completed};
     * when the processor throws, or the lock is lost, it is not written. The default, for jobs not run by a
     * {@link Worker}, reports it at once with {@link #updateProgress}.
     *
     * @param percent progress in percent, 0-100
     * @throws IllegalArgumentException if {@code percent} is outside 0-100
     */
    default void updateProgressOnCompletion(int percent) {
        updateProgress(percent);
    }
}
