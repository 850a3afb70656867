package com.teamdesk.tasks.queue;

/**
 * The Lua scripts of the queue: every state transition is ONE script, so it is atomic on the Redis server.
 * Each lives in {@code src/main/resources/queue/lua/<name>.lua}, whose header documents KEYS, ARGV and the
 * reply; shared helpers are in {@code helpers.lua}. They are read once, when this class is initialised.
 *
 * <p>Timestamps come from the server's {@code TIME} (Redis 7 replicates script effects, so this is safe).
 * Job keys that a script discovers (popped ids) are built from the job key prefix given in ARGV, as BullMQ
 * does; all keys of one queue must therefore live on one node (use a hash-tagged prefix on a cluster).
 */
final class QueueScripts {

    private QueueScripts() {
    }

    /** R2: adds a job unless its id exists in any state. */
    static final LuaScript ADD = LuaScript.fromClasspath("add");
    /** Promotes due delayed jobs, pops and locks the next waiting job (R6). */
    static final LuaScript MOVE_TO_ACTIVE = LuaScript.fromClasspath("moveToActive");
    /** Completes a job under its lock, applies retention (R5), optionally fetches the next one. */
    static final LuaScript COMPLETE = LuaScript.fromClasspath("complete");
    /** Fails one execution under its lock: retry after the backoff (R4) or fail for good; optionally fetches. */
    static final LuaScript FAIL = LuaScript.fromClasspath("fail");
    /** Issue 28: puts an execution's job back in delayed under its lock without counting an attempt. */
    static final LuaScript DEFER = LuaScript.fromClasspath("defer");
    /** R6: extends the locks still held by their executions. */
    static final LuaScript EXTEND_LOCKS = LuaScript.fromClasspath("extendLocks");
    /** Records progress under the lock (R6). */
    static final LuaScript UPDATE_PROGRESS = LuaScript.fromClasspath("updateProgress");
    /** R6: stalled check, once per interval across workers. */
    static final LuaScript MOVE_STALLED = LuaScript.fromClasspath("moveStalledJobs");
    /** R5: the periodic retention trim. */
    static final LuaScript TRIM_RETENTION = LuaScript.fromClasspath("trimRetention");
    /** Removes a job unless it is active with a live lock. */
    static final LuaScript REMOVE = LuaScript.fromClasspath("remove");
    /** A job's record, whether it is active and its lock, one consistent read. */
    static final LuaScript GET_JOB = LuaScript.fromClasspath("getJob");
    /** Number of jobs per state, one consistent snapshot. */
    static final LuaScript COUNTS = LuaScript.fromClasspath("counts");
    /** R22: publishes or deletes a worker's heartbeat. */
    static final LuaScript HEARTBEAT = LuaScript.fromClasspath("heartbeat");
    /** Issue 30: sets or clears a group's cap of active jobs. */
    static final LuaScript SET_GROUP_CAP = LuaScript.fromClasspath("setGroupCap");
    /** Issue 30: the groups with waiting jobs or a cap, for an operator. */
    static final LuaScript GROUPS = LuaScript.fromClasspath("groups");
    /** Issue 30: each rate limit's state in the current window. */
    static final LuaScript RATE_STATUS = LuaScript.fromClasspath("rateStatus");
    /** R22: the live worker ids; prunes dead ones. */
    static final LuaScript LIVE_WORKERS = LuaScript.fromClasspath("liveWorkers");
}
