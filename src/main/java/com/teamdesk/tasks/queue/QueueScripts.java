package com.teamdesk.tasks.queue;

/**
 * The Lua scripts of the queue: every state transition is ONE script, so it is atomic on the Redis server.
 * Each header documents KEYS, ARGV and the reply; {@code docs/queue.md} describes the keys and fields.
 *
 * <p>Timestamps come from the server's {@code TIME} (Redis 7 replicates script effects, so this is safe).
 * Job keys that a script discovers (popped ids) are built from the job key prefix given in ARGV, as BullMQ
 * does; all keys of one queue must therefore live on one node (use a hash-tagged prefix on a cluster).
 */
final class QueueScripts {

    private QueueScripts() {
    }

    /** Helpers shared by the scripts below (prepended to each). */
    private static final String LIB = """
            local rcall = redis.call

            -- Current time of the Redis server in epoch milliseconds.
            local function nowMs()
              local t = rcall('TIME')
              return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            end

            -- Moves delayed jobs that are due (score <= now) to the end of the wait list, at most 1000 per call.
            local function promoteDueJobs(delayedKey, waitKey, jobPrefix, now)
              local due = rcall('ZRANGEBYSCORE', delayedKey, '-inf', now, 'LIMIT', 0, 1000)
              if #due > 0 then
                rcall('ZREM', delayedKey, unpack(due))
                rcall('RPUSH', waitKey, unpack(due))
                for _, id in ipairs(due) do
                  rcall('HSET', jobPrefix .. id, 'state', 'waiting')
                end
              end
            end

            -- Promotes due jobs, then pops the next waiting job and locks it for the execution holding token:
            --   {1, id, data, attemptsMade, attemptsStarted, maxAttempts, backoffMs, backoffJitter}
            -- With no job: {0, ms until the next delayed job is due (>= 1), or -1 when none is delayed}.
            local function fetchNext(waitKey, activeKey, delayedKey, markerKey, jobPrefix, token, lockMs, now)
              promoteDueJobs(delayedKey, waitKey, jobPrefix, now)
              local id = rcall('LPOP', waitKey)
              while id do
                local jobKey = jobPrefix .. id
                if rcall('EXISTS', jobKey) == 1 then
                  rcall('SADD', activeKey, id)
                  rcall('SET', jobKey .. ':lock', token, 'PX', lockMs)
                  local started = rcall('HINCRBY', jobKey, 'attemptsStarted', 1)
                  rcall('HSET', jobKey, 'state', 'active', 'processedAt', now)
                  if rcall('LLEN', waitKey) > 0 then
                    -- more work waiting: keep a marker so that another blocked worker wakes up too
                    rcall('ZADD', markerKey, 0, '0')
                  end
                  local f = rcall('HMGET', jobKey, 'data', 'attemptsMade', 'maxAttempts', 'backoffMs', 'backoffJitter')
                  return {1, id, f[1], f[2], started, f[3], f[4], f[5]}
                end
                id = rcall('LPOP', waitKey)
              end
              local nextDue = rcall('ZRANGE', delayedKey, 0, 0, 'WITHSCORES')[2]
              if nextDue then
                return {0, math.max(1, tonumber(nextDue) - now)}
              end
              return {0, -1}
            end

            -- Deletes the records of the finished jobs ids and their membership in setKey.
            local function removeFinished(setKey, jobPrefix, ids)
              if #ids == 0 then
                return 0
              end
              local jobKeys = {}
              for i, id in ipairs(ids) do
                jobKeys[i] = jobPrefix .. id
              end
              rcall('ZREM', setKey, unpack(ids))
              rcall('DEL', unpack(jobKeys))
              return #ids
            end

            -- Retention (R5): removes the records of setKey (scored by finish time) finished at least maxAgeSec
            -- ago, and those beyond the newest maxCount; at most limit of each. nil means no limit of that kind.
            local function trimFinished(setKey, jobPrefix, maxAgeSec, maxCount, now, limit)
              local removed = 0
              if maxAgeSec then
                removed = removeFinished(setKey, jobPrefix,
                  rcall('ZRANGEBYSCORE', setKey, '-inf', now - maxAgeSec * 1000, 'LIMIT', 0, limit))
              end
              if maxCount then
                local excess = rcall('ZCARD', setKey) - maxCount
                if excess > 0 then
                  removed = removed + removeFinished(setKey, jobPrefix,
                    rcall('ZRANGE', setKey, 0, math.min(excess, limit) - 1))
                end
              end
              return removed
            end

            -- Adds a job that finished for good to its set (kind 'completed' or 'failed'), applies the job's
            -- retention to the whole set (as BullMQ does) and remembers it in meta for the periodic trim.
            local function addFinished(setKey, metaKey, jobPrefix, id, kind, now)
              rcall('ZADD', setKey, now, id)
              local ageField, countField = kind .. 'MaxAgeSec', kind .. 'MaxCount'
              local keep = rcall('HMGET', jobPrefix .. id, ageField, countField)
              local seen = rcall('HMGET', metaKey, ageField, countField)
              if keep[1] and (seen[1] ~= keep[1] or seen[2] ~= keep[2]) then
                rcall('HSET', metaKey, ageField, keep[1], countField, keep[2])
              end
              trimFinished(setKey, jobPrefix, tonumber(keep[1]), tonumber(keep[2]), now, 1000)
            end

            -- R6: the lock of an active job holds the token of the execution that owns it. If it does, releases
            -- the lock and takes the job out of active; false (nothing changed) when the lock is lost.
            local function releaseLock(activeKey, jobKey, id, token)
              if rcall('GET', jobKey .. ':lock') ~= token then
                return false
              end
              rcall('DEL', jobKey .. ':lock')
              rcall('SREM', activeKey, id)
              return true
            end

            """;

    /*
     * add (R2): adds a job unless a record with its id exists in any state.
     *   KEYS[1] job hash  KEYS[2] wait  KEYS[3] delayed  KEYS[4] marker
     *   ARGV[1] job id  ARGV[2] data  ARGV[3] maxAttempts  ARGV[4] backoffMs  ARGV[5] backoffJitter (0/1)
     *   ARGV[6] delayMs  ARGV[7] completedMaxAgeSec  ARGV[8] completedMaxCount  ARGV[9] failedMaxAgeSec
     *   ARGV[10] failedMaxCount
     *   Reply: 1 added (waiting, or delayed when delayMs > 0), 0 duplicate (nothing changed).
     */
    static final LuaScript ADD = new LuaScript("add", LIB + """
            if rcall('EXISTS', KEYS[1]) == 1 then
              return 0
            end
            local now = nowMs()
            local delay = tonumber(ARGV[6])
            local state = 'waiting'
            if delay > 0 then
              state = 'delayed'
            end
            rcall('HSET', KEYS[1], 'data', ARGV[2], 'state', state, 'maxAttempts', ARGV[3],
              'backoffMs', ARGV[4], 'backoffJitter', ARGV[5],
              'completedMaxAgeSec', ARGV[7], 'completedMaxCount', ARGV[8],
              'failedMaxAgeSec', ARGV[9], 'failedMaxCount', ARGV[10],
              'attemptsMade', 0, 'attemptsStarted', 0, 'stalledCounter', 0, 'progress', 0, 'addedAt', now)
            if delay > 0 then
              rcall('ZADD', KEYS[3], now + delay, ARGV[1])
            else
              rcall('RPUSH', KEYS[2], ARGV[1])
            end
            rcall('ZADD', KEYS[4], 0, '0')
            return 1
            """);

    /*
     * moveToActive: promotes due delayed jobs, pops the next waiting job and locks it (R6).
     *   KEYS[1] wait  KEYS[2] active  KEYS[3] delayed  KEYS[4] marker
     *   ARGV[1] job key prefix  ARGV[2] lock token  ARGV[3] lock duration ms
     *   Reply: see fetchNext.
     */
    static final LuaScript MOVE_TO_ACTIVE = new LuaScript("moveToActive", LIB + """
            return fetchNext(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], ARGV[3], nowMs())
            """);

    /*
     * complete: if the lock holds the token, moves the job from active to completed, applies retention (R5)
     * and optionally fetches the next job in the same round trip.
     *   KEYS[1] wait  KEYS[2] active  KEYS[3] delayed  KEYS[4] marker  KEYS[5] completed  KEYS[6] meta
     *   ARGV[1] job key prefix  ARGV[2] job id  ARGV[3] lock token  ARGV[4] fetch next (1/0)
     *   ARGV[5] lock token for the next job  ARGV[6] lock duration ms
     *   Reply: {-1} lock lost (nothing changed); {1} completed; {1, fetchNext reply} when fetching.
     */
    static final LuaScript COMPLETE = new LuaScript("complete", LIB + """
            local jobKey = ARGV[1] .. ARGV[2]
            if not releaseLock(KEYS[2], jobKey, ARGV[2], ARGV[3]) then
              return {-1}
            end
            local now = nowMs()
            -- Like BullMQ 5+, a successful execution counts as an attempt made too.
            rcall('HINCRBY', jobKey, 'attemptsMade', 1)
            rcall('HSET', jobKey, 'state', 'completed', 'finishedAt', now)
            addFinished(KEYS[5], KEYS[6], ARGV[1], ARGV[2], 'completed', now)
            if ARGV[4] == '1' then
              return {1, fetchNext(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[5], ARGV[6], now)}
            end
            return {1}
            """);

    /*
     * fail: if the lock holds the token, counts a failed execution (attemptsMade + 1) and moves the job to
     * failed (unrecoverable, or attempts used up: exhausted) or back to delayed/wait for a retry after the
     * backoff (R4); applies retention (R5) and optionally fetches the next job.
     *   KEYS[1] wait  KEYS[2] active  KEYS[3] delayed  KEYS[4] marker  KEYS[5] failed  KEYS[6] meta
     *   ARGV[1] job key prefix  ARGV[2] job id  ARGV[3] lock token  ARGV[4] failed reason
     *   ARGV[5] unrecoverable (1/0)  ARGV[6] retry delay ms  ARGV[7] fetch next (1/0)
     *   ARGV[8] lock token for the next job  ARGV[9] lock duration ms
     *   Reply: {-1} lock lost (nothing changed); {1, attemptsMade, exhausted (1/0)} and, when fetching,
     *   a fourth element with the fetchNext reply.
     */
    static final LuaScript FAIL = new LuaScript("fail", LIB + """
            local jobKey = ARGV[1] .. ARGV[2]
            if not releaseLock(KEYS[2], jobKey, ARGV[2], ARGV[3]) then
              return {-1}
            end
            local now = nowMs()
            local attemptsMade = rcall('HINCRBY', jobKey, 'attemptsMade', 1)
            local maxAttempts = tonumber(rcall('HGET', jobKey, 'maxAttempts'))
            local exhausted = 0
            if ARGV[5] == '1' or attemptsMade >= maxAttempts then
              exhausted = 1
              rcall('HSET', jobKey, 'state', 'failed', 'failedReason', ARGV[4], 'finishedAt', now, 'exhausted', 1)
              addFinished(KEYS[5], KEYS[6], ARGV[1], ARGV[2], 'failed', now)
            else
              local delay = tonumber(ARGV[6])
              if delay > 0 then
                rcall('ZADD', KEYS[3], now + delay, ARGV[2])
                rcall('HSET', jobKey, 'state', 'delayed', 'failedReason', ARGV[4])
              else
                rcall('RPUSH', KEYS[1], ARGV[2])
                rcall('HSET', jobKey, 'state', 'waiting', 'failedReason', ARGV[4])
              end
              -- wake a blocked worker so that it waits no longer than this job's due time
              rcall('ZADD', KEYS[4], 0, '0')
            end
            if ARGV[7] == '1' then
              return {1, attemptsMade, exhausted,
                fetchNext(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[8], ARGV[9], now)}
            end
            return {1, attemptsMade, exhausted}
            """);

    /*
     * extendLocks (R6): extends each lock that still holds its execution's token.
     *   KEYS[i] lock key of job i
     *   ARGV[1] lock duration ms  ARGV[i + 1] token of KEYS[i]
     *   Reply: the 1-based indexes i whose lock is missing or held by another token (not extended).
     */
    static final LuaScript EXTEND_LOCKS = new LuaScript("extendLocks", """
            local lost = {}
            for i, lockKey in ipairs(KEYS) do
              if redis.call('GET', lockKey) == ARGV[i + 1] then
                redis.call('PEXPIRE', lockKey, ARGV[1])
              else
                lost[#lost + 1] = i
              end
            end
            return lost
            """);

    /*
     * updateProgress: records progress if the lock holds the token (R6).
     *   KEYS[1] job hash  KEYS[2] lock
     *   ARGV[1] lock token  ARGV[2] percent 0-100
     *   Reply: 1 written, 0 lock lost (nothing changed).
     */
    static final LuaScript UPDATE_PROGRESS = new LuaScript("updateProgress", """
            if redis.call('GET', KEYS[2]) ~= ARGV[1] then
              return 0
            end
            redis.call('HSET', KEYS[1], 'progress', ARGV[2])
            return 1
            """);

    /*
     * moveStalledJobs (R6, BullMQ moveStalledJobsToWait): at most once per guard interval across workers,
     * every active job whose lock key is gone gets stalledCounter + 1 and goes back to wait, or to failed
     * (exhausted) once stalledCounter > maxStalledCount.
     *   KEYS[1] wait  KEYS[2] active  KEYS[3] marker  KEYS[4] failed  KEYS[5] meta  KEYS[6] stalled-check guard
     *   ARGV[1] job key prefix  ARGV[2] maxStalledCount  ARGV[3] guard TTL ms  ARGV[4] failed reason
     *   Reply: one {job id, failed (1/0), attemptsMade} per stalled job; empty when another worker checked
     *   within the interval.
     */
    static final LuaScript MOVE_STALLED = new LuaScript("moveStalledJobs", LIB + """
            if not rcall('SET', KEYS[6], '1', 'NX', 'PX', ARGV[3]) then
              return {}
            end
            local now = nowMs()
            local maxStalled = tonumber(ARGV[2])
            local stalled = {}
            for _, id in ipairs(rcall('SMEMBERS', KEYS[2])) do
              local jobKey = ARGV[1] .. id
              if rcall('EXISTS', jobKey .. ':lock') == 0 then
                rcall('SREM', KEYS[2], id)
                if rcall('EXISTS', jobKey) == 1 then
                  local count = rcall('HINCRBY', jobKey, 'stalledCounter', 1)
                  local attemptsMade = tonumber(rcall('HGET', jobKey, 'attemptsMade'))
                  if count > maxStalled then
                    rcall('HSET', jobKey, 'state', 'failed', 'failedReason', ARGV[4], 'finishedAt', now, 'exhausted', 1)
                    addFinished(KEYS[4], KEYS[5], ARGV[1], id, 'failed', now)
                    stalled[#stalled + 1] = {id, 1, attemptsMade}
                  else
                    rcall('RPUSH', KEYS[1], id)
                    rcall('HSET', jobKey, 'state', 'waiting')
                    rcall('ZADD', KEYS[3], 0, '0')
                    stalled[#stalled + 1] = {id, 0, attemptsMade}
                  end
                end
              end
            end
            return stalled
            """);

    /*
     * trimRetention (R5): applies the retention last recorded in meta to completed and failed records;
     * never touches wait, active or delayed.
     *   KEYS[1] completed  KEYS[2] failed  KEYS[3] meta  KEYS[4] retention-check guard
     *   ARGV[1] job key prefix  ARGV[2] guard TTL ms (0 = always run)  ARGV[3] max removals per set and kind
     *   Reply: {removed completed, removed failed}; {0, 0} when another worker trimmed within the interval.
     */
    static final LuaScript TRIM_RETENTION = new LuaScript("trimRetention", LIB + """
            if tonumber(ARGV[2]) > 0 and not rcall('SET', KEYS[4], '1', 'NX', 'PX', ARGV[2]) then
              return {0, 0}
            end
            local now = nowMs()
            local limit = tonumber(ARGV[3])
            local m = rcall('HMGET', KEYS[3], 'completedMaxAgeSec', 'completedMaxCount', 'failedMaxAgeSec', 'failedMaxCount')
            return {trimFinished(KEYS[1], ARGV[1], tonumber(m[1]), tonumber(m[2]), now, limit),
                    trimFinished(KEYS[2], ARGV[1], tonumber(m[3]), tonumber(m[4]), now, limit)}
            """);

    /*
     * remove: deletes a job record, its lock and its membership everywhere, unless it is active with a live lock.
     *   KEYS[1] job hash  KEYS[2] lock  KEYS[3] wait  KEYS[4] active  KEYS[5] delayed  KEYS[6] completed
     *   KEYS[7] failed
     *   ARGV[1] job id
     *   Reply: 1 removed, 0 no such job, -1 refused (active and locked).
     */
    static final LuaScript REMOVE = new LuaScript("remove", """
            local rcall = redis.call
            if rcall('EXISTS', KEYS[1]) == 0 then
              return 0
            end
            if rcall('SISMEMBER', KEYS[4], ARGV[1]) == 1 and rcall('EXISTS', KEYS[2]) == 1 then
              return -1
            end
            rcall('LREM', KEYS[3], 0, ARGV[1])
            rcall('SREM', KEYS[4], ARGV[1])
            rcall('ZREM', KEYS[5], ARGV[1])
            rcall('ZREM', KEYS[6], ARGV[1])
            rcall('ZREM', KEYS[7], ARGV[1])
            rcall('DEL', KEYS[1], KEYS[2])
            return 1
            """);

    /*
     * counts: a consistent snapshot of the number of jobs per state.
     *   KEYS[1] wait  KEYS[2] delayed  KEYS[3] active  KEYS[4] completed  KEYS[5] failed
     *   Reply: {waiting, delayed, active, completed, failed}
     */
    static final LuaScript COUNTS = new LuaScript("counts", """
            return {redis.call('LLEN', KEYS[1]), redis.call('ZCARD', KEYS[2]), redis.call('SCARD', KEYS[3]),
                    redis.call('ZCARD', KEYS[4]), redis.call('ZCARD', KEYS[5])}
            """);

    /*
     * heartbeat (R22): publishes (TTL > 0) or deletes (TTL = 0) a worker's heartbeat key and registers the id.
     *   KEYS[1] heartbeat key  KEYS[2] workers set  KEYS[3] workers-seen hash (optional)
     *   ARGV[1] worker id  ARGV[2] TTL ms  ARGV[3] value (the worker's info, JSON); also kept in KEYS[3]
     *   Reply: 1
     */
    static final LuaScript HEARTBEAT = new LuaScript("heartbeat", """
            if tonumber(ARGV[2]) > 0 then
              redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[2])
              redis.call('SADD', KEYS[2], ARGV[1])
            else
              redis.call('DEL', KEYS[1])
              redis.call('SREM', KEYS[2], ARGV[1])
            end
            if KEYS[3] and ARGV[3] ~= '' then
              redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
            end
            return 1
            """);

    /*
     * liveWorkers (R22): the registered worker ids whose heartbeat key still exists; prunes the others.
     *   KEYS[1] workers set
     *   ARGV[1] heartbeat key prefix ("<prefix>:<queue>:workers:")
     *   Reply: the live worker ids
     */
    static final LuaScript LIVE_WORKERS = new LuaScript("liveWorkers", """
            local live = {}
            for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
              if redis.call('EXISTS', ARGV[1] .. id) == 1 then
                live[#live + 1] = id
              else
                redis.call('SREM', KEYS[1], id)
              end
            end
            return live
            """);
}
