package com.teamdesk.tasks.queue;

/**
 * Settings of a {@link Worker}. All durations in milliseconds.
 *
 * @param concurrency             jobs processed at the same time by this worker, {@code >= 1}
 * @param lockDurationMs          TTL of a job's lock (R6), {@code > 0}; default 30000
 * @param lockRenewMs             how often the locks of in-flight jobs are extended, {@code > 0}; default 15000. Must be
 *                                below {@code lockDurationMs}, which the {@link Worker} constructor checks (not this
 *                                record, so that {@code withX} copies can be chained in any order)
 * @param stalledIntervalMs       how often the stalled check runs (once per interval across all workers of the queue;
 *                                its guard lives 2 ms and 1 % shorter), {@code > 0}; default 30000
 * @param maxStalledCount         how often a job may stall before it fails for good, {@code >= 0}; default 1
 * @param retentionTrimIntervalMs how often retention is enforced even while idle (R5), {@code > 0}; default 60000
 * @param heartbeatTtlMs          TTL of the worker's heartbeat key (R22), refreshed every third of it, {@code >= 3};
 *                                default 15000
 * @param lockRenewal             whether the locks of in-flight jobs are renewed (R6); default true. False is for
 *                                fault drills and tests only: a job running longer than {@code lockDurationMs} then
 *                                loses its lock and the stalled check takes it over, as if its worker had died
 * @param reservedSlots           R, how many of the {@code concurrency} slots are reserved slots (issue 30, R42),
 *                                {@code 0 <= R < concurrency}; default 0 (every slot general, as before). A reserved
 *                                slot only takes a job of priority {@code >= reservedMinPriority}, fetched by a
 *                                second fetch loop of its own; the other {@code concurrency - R} slots take any job
 * @param reservedMinPriority     P, the least priority a reserved slot takes, {@link JobOptions#MIN_PRIORITY} + 1 to
 *                                {@link JobOptions#MAX_PRIORITY} (a reserved loop is woken only for jobs of priority
 *                                {@code > 0}); default 1; unused when {@code reservedSlots} is 0
 */
public record WorkerOptions(int concurrency, long lockDurationMs, long lockRenewMs, long stalledIntervalMs,
                            int maxStalledCount, long retentionTrimIntervalMs, long heartbeatTtlMs,
                            boolean lockRenewal, int reservedSlots, int reservedMinPriority) {

    /** Worker tasks besides the processing slots: fetch loop, lock renewal, housekeeping, heartbeat. */
    static final int INTERNAL_TASKS = 4;

    /**
     * @throws IllegalArgumentException if a value is out of range
     */
    public WorkerOptions {
        require(concurrency >= 1, "concurrency must be >= 1");
        require(lockDurationMs > 0, "lockDurationMs must be > 0");
        require(lockRenewMs > 0, "lockRenewMs must be > 0");
        require(stalledIntervalMs > 0, "stalledIntervalMs must be > 0");
        require(maxStalledCount >= 0, "maxStalledCount must be >= 0");
        require(retentionTrimIntervalMs > 0, "retentionTrimIntervalMs must be > 0");
        require(heartbeatTtlMs >= 3, "heartbeatTtlMs must be >= 3");
        require(reservedSlots >= 0 && reservedSlots < concurrency,
                "reservedSlots must be >= 0 and below concurrency (" + concurrency + "): " + reservedSlots);
        require(reservedMinPriority > JobOptions.MIN_PRIORITY && reservedMinPriority <= JobOptions.MAX_PRIORITY,
                "reservedMinPriority must be " + (JobOptions.MIN_PRIORITY + 1) + "-" + JobOptions.MAX_PRIORITY + ": "
                        + reservedMinPriority);
    }

    /**
     * Settings with lock renewal on (the production case); see the record's components.
     *
     * @throws IllegalArgumentException if a value is out of range
     */
    public WorkerOptions(int concurrency, long lockDurationMs, long lockRenewMs, long stalledIntervalMs,
                         int maxStalledCount, long retentionTrimIntervalMs, long heartbeatTtlMs) {
        this(concurrency, lockDurationMs, lockRenewMs, stalledIntervalMs, maxStalledCount, retentionTrimIntervalMs,
                heartbeatTtlMs, true);
    }

    /**
     * Settings without reserved slots; see the record's components.
     *
     * @throws IllegalArgumentException if a value is out of range
     */
    public WorkerOptions(int concurrency, long lockDurationMs, long lockRenewMs, long stalledIntervalMs,
                         int maxStalledCount, long retentionTrimIntervalMs, long heartbeatTtlMs, boolean lockRenewal) {
        this(concurrency, lockDurationMs, lockRenewMs, stalledIntervalMs, maxStalledCount, retentionTrimIntervalMs,
                heartbeatTtlMs, lockRenewal, 0, 1);
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /**
     * Concurrency 1, lock 30000 ms renewed every 15000 ms, stalled check every 30000 ms, maxStalledCount 1,
     * retention trim every 60000 ms, heartbeat TTL 15000 ms, locks renewed (R6, R5, R22).
     *
     * @return the defaults
     */
    public static WorkerOptions defaults() {
        return new WorkerOptions(1, 30_000, 15_000, 30_000, 1, 60_000, 15_000, true, 0, 1);
    }

    /** @return the worker's internal tasks: 4, and 5 with reserved slots (their fetch loop) */
    int internalTasks() {
        return INTERNAL_TASKS + (reservedSlots > 0 ? 1 : 0);
    }

    /**
     * @return how many tasks the worker's executor must be able to run at the same time:
     *         {@code concurrency + 4} (processing slots, fetch loop, lock renewal, housekeeping, heartbeat), one more
     *         with reserved slots (the reserved loop)
     */
    public int requiredThreads() {
        return concurrency + internalTasks();
    }

    /**
     * @return how many pooled Redis connections the worker may use at the same time: {@code concurrency + 4}, one
     *         more with reserved slots (the reserved loop blocks on a connection of its own); size the client's
     *         pool to at least this plus what producers on the same client need
     */
    public int requiredConnections() {
        return concurrency + internalTasks();
    }

    /**
     * @param v jobs processed at the same time
     * @return a copy with {@code concurrency = v}
     */
    public WorkerOptions withConcurrency(int v) {
        return new WorkerOptions(v, lockDurationMs, lockRenewMs, stalledIntervalMs, maxStalledCount,
                retentionTrimIntervalMs, heartbeatTtlMs, lockRenewal, reservedSlots, reservedMinPriority);
    }

    /**
     * @param v lock TTL in ms
     * @return a copy with {@code lockDurationMs = v}
     */
    public WorkerOptions withLockDurationMs(long v) {
        return new WorkerOptions(concurrency, v, lockRenewMs, stalledIntervalMs, maxStalledCount,
                retentionTrimIntervalMs, heartbeatTtlMs, lockRenewal, reservedSlots, reservedMinPriority);
    }

    /**
     * @param v lock renewal period in ms
     * @return a copy with {@code lockRenewMs = v}
     */
    public WorkerOptions withLockRenewMs(long v) {
        return new WorkerOptions(concurrency, lockDurationMs, v, stalledIntervalMs, maxStalledCount,
                retentionTrimIntervalMs, heartbeatTtlMs, lockRenewal, reservedSlots, reservedMinPriority);
    }

    /**
     * @param v stalled check period in ms
     * @return a copy with {@code stalledIntervalMs = v}
     */
    public WorkerOptions withStalledIntervalMs(long v) {
        return new WorkerOptions(concurrency, lockDurationMs, lockRenewMs, v, maxStalledCount,
                retentionTrimIntervalMs, heartbeatTtlMs, lockRenewal, reservedSlots, reservedMinPriority);
    }

    /**
     * @param v stalls allowed before failing
     * @return a copy with {@code maxStalledCount = v}
     */
    public WorkerOptions withMaxStalledCount(int v) {
        return new WorkerOptions(concurrency, lockDurationMs, lockRenewMs, stalledIntervalMs, v,
                retentionTrimIntervalMs, heartbeatTtlMs, lockRenewal, reservedSlots, reservedMinPriority);
    }

    /**
     * @param v retention trim period in ms
     * @return a copy with {@code retentionTrimIntervalMs = v}
     */
    public WorkerOptions withRetentionTrimIntervalMs(long v) {
        return new WorkerOptions(concurrency, lockDurationMs, lockRenewMs, stalledIntervalMs, maxStalledCount,
                v, heartbeatTtlMs, lockRenewal, reservedSlots, reservedMinPriority);
    }

    /**
     * @param v heartbeat TTL in ms
     * @return a copy with {@code heartbeatTtlMs = v}
     */
    public WorkerOptions withHeartbeatTtlMs(long v) {
        return new WorkerOptions(concurrency, lockDurationMs, lockRenewMs, stalledIntervalMs, maxStalledCount,
                retentionTrimIntervalMs, v, lockRenewal, reservedSlots, reservedMinPriority);
    }

    /**
     * @param v false to never renew locks (fault drills and tests: a running job's lock expires, R6)
     * @return a copy with {@code lockRenewal = v}
     */
    public WorkerOptions withLockRenewal(boolean v) {
        return new WorkerOptions(concurrency, lockDurationMs, lockRenewMs, stalledIntervalMs, maxStalledCount,
                retentionTrimIntervalMs, heartbeatTtlMs, v, reservedSlots, reservedMinPriority);
    }

    /**
     * Reserved slots (issue 30, R42): {@code slots} of the {@code concurrency} slots take only jobs of priority
     * {@code >= minPriority}. Set it after {@link #withConcurrency(int)}: the record checks
     * {@code slots < concurrency}.
     *
     * @param slots       R, {@code 0 <= R < concurrency}; 0 = none
     * @param minPriority P, 1-10
     * @return a copy with {@code reservedSlots = slots}, {@code reservedMinPriority = minPriority}
     * @throws IllegalArgumentException if a value is out of range
     */
    public WorkerOptions withReservedSlots(int slots, int minPriority) {
        return new WorkerOptions(concurrency, lockDurationMs, lockRenewMs, stalledIntervalMs, maxStalledCount,
                retentionTrimIntervalMs, heartbeatTtlMs, lockRenewal, slots, minPriority);
    }
}
