-- helpers.lua: functions shared by the queue's scripts. Not a script of its own: a script pulls it in
-- with the line `--!include helpers.lua`, which LuaScript replaces by this file's text before the
-- script is hashed and sent (scripts/lua-expand.sh does the same for redis-cli --eval).
-- Uses no KEYS or ARGV: every key and argument is passed in by the including script.

local rcall = redis.call

-- Current time of the Redis server in epoch milliseconds.
local function nowMs()
  local t = rcall('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- An integer (a Lua number) as the decimal string Redis stores. redis.call formats every number argument
-- with "%.17g" (Redis 7.0), which costs several times more than formatting it once here: a script that
-- writes a number once per job (a timestamp, a counter) converts it with this instead (issue 16).
local function int(n)
  return string.format('%d', n)
end

-- Fair share (issue 30). A waiting job is in one lane: the ungrouped lane (waitKey, a LIST, FIFO: jobs added
-- without a group, and every job of an earlier version) or the lane of its group (lanesKey .. ':' .. group, a
-- ZSET scored by the job's order, see enqueue). lanesKey is a LIST of the lanes that hold waiting jobs, each
-- once ('' names the ungrouped lane), in the order they are served: a fetch pops the first lane, takes one job
-- from it and pushes the lane back to the end while it still holds jobs (round robin across groups); a lane
-- alone in the rotation gives every job asked for at once.
--
-- Within a group, higher priority first and FIFO within a priority, with aging: a job's score is its place in
-- the queue's sequence (seqKey, INCR) minus priority x AGING, so a job is overtaken by at most AGING x (the
-- difference in priority) jobs of its group that arrived after it, never starved.
local AGING = 1000

-- Puts jobId at the end of its lane (its group's, or the ungrouped lane for group '' or nil) and the lane in
-- the rotation when it was empty; a job of priority > 0 also sets the urgent marker (lanesKey .. '-urgent', see
-- popUrgent). Returns true when the lane joined the rotation (the caller may have to set
-- the marker: see add.lua), false when it held jobs already.
local function enqueue(waitKey, lanesKey, seqKey, jobId, group, priority)
  if not group or group == '' then
    if (tonumber(priority) or 0) > 0 then
      rcall('ZADD', lanesKey .. '-urgent', '0', '0') -- wakes a blocked reserved loop (R42, popUrgent below)
    end
    if rcall('RPUSH', waitKey, jobId) == 1 then
      rcall('RPUSH', lanesKey, '')
      return true
    end
    return false
  end
  local laneKey = lanesKey .. ':' .. group
  local seq = rcall('INCR', seqKey)
  local p = tonumber(priority) or 0
  rcall('ZADD', laneKey, int(seq - p * AGING), jobId)
  if p > 0 then
    rcall('ZADD', lanesKey .. '-urgent', '0', '0') -- wakes a blocked reserved loop (R42, popUrgent below)
  end
  if rcall('ZCARD', laneKey) == 1 then
    rcall('RPUSH', lanesKey, group)
    return true
  end
  return false
end

-- Puts a stalled job of a group back at the head of its lane (before every waiting job of the group,
-- whatever their priority): it had been served already, so the next fetch takes it over rather than a
-- later job of its group, and the task layer's lease takeover keeps the group's running count (issue 30,
-- CapSlotCrashIT). Ungrouped jobs (earlier versions) go to the end of wait as before (R6).
local function enqueueFirst(waitKey, lanesKey, seqKey, jobId, group, priority)
  if not group or group == '' then
    return enqueue(waitKey, lanesKey, seqKey, jobId, group, priority)
  end
  local laneKey = lanesKey .. ':' .. group
  local head = rcall('ZRANGE', laneKey, 0, 0, 'WITHSCORES')
  if #head == 0 then
    return enqueue(waitKey, lanesKey, seqKey, jobId, group, priority)
  end
  rcall('ZADD', laneKey, int(tonumber(head[2]) - 1), jobId)
  if (tonumber(priority) or 0) > 0 then
    rcall('ZADD', lanesKey .. '-urgent', '0', '0') -- wakes a blocked reserved loop, as enqueue does (R42)
  end
  return false
end

-- The group and priority a job's record holds (nil, nil for an ungrouped job).
local function laneOf(jobKey)
  local f = rcall('HMGET', jobKey, 'group', 'priority')
  return f[1], f[2]
end

-- Takes a waiting job out of its lane (remove, cancel) and its lane out of the rotation when it empties.
local function dequeue(waitKey, lanesKey, jobId, group)
  if not group or group == '' then
    if rcall('LREM', waitKey, 0, jobId) > 0 and rcall('LLEN', waitKey) == 0 then
      rcall('LREM', lanesKey, 0, '')
    end
    return
  end
  local laneKey = lanesKey .. ':' .. group
  if rcall('ZREM', laneKey, jobId) > 0 and rcall('ZCARD', laneKey) == 0 then
    rcall('LREM', lanesKey, 0, group)
    rcall('SREM', lanesKey .. '-parked', group)
  end
end

-- Per-group caps (issue 30): lanesKey .. '-caps' is a HASH group -> the most jobs of that group active at once
-- (set by setGroupCap); a capped group's fetched ids are in lanesKey .. ':' .. group .. ':running', pruned of
-- the ids no longer active whenever it is counted, so the count can never leak: a finished, retried, deferred
-- or stalled job has left the active set. A capped group at its cap leaves the rotation for the SET
-- lanesKey .. '-parked' and comes back at the next fetch after one of its jobs left active.

-- The number of active jobs of a capped group; prunes the ids that are no longer active.
local function runningOf(lanesKey, activeKey, group)
  local runKey = lanesKey .. ':' .. group .. ':running'
  local ids = rcall('SMEMBERS', runKey)
  if #ids == 0 then
    return 0
  end
  local active = rcall('SMISMEMBER', activeKey, unpack(ids))
  local gone = {}
  for i, id in ipairs(ids) do
    if active[i] == 0 then
      gone[#gone + 1] = id
    end
  end
  if #gone > 0 then
    rcall('SREM', runKey, unpack(gone))
  end
  return #ids - #gone
end

-- Brings the parked groups that are below their cap again (or no longer capped) back into the rotation, and
-- forgets parked groups whose lane emptied. Returns nothing.
local function unparkFree(lanesKey, activeKey)
  local parkedKey = lanesKey .. '-parked'
  if rcall('SCARD', parkedKey) == 0 then
    return
  end
  for _, group in ipairs(rcall('SMEMBERS', parkedKey)) do
    local cap = rcall('HGET', lanesKey .. '-caps', group)
    if rcall('ZCARD', lanesKey .. ':' .. group) == 0 then
      rcall('SREM', parkedKey, group)
    elseif not cap or runningOf(lanesKey, activeKey, group) < tonumber(cap) then
      rcall('SREM', parkedKey, group)
      rcall('RPUSH', lanesKey, group)
    end
  end
end

-- Pops up to n waiting ids, lane by lane in round robin (see above); a capped group gives at most what its cap
-- leaves free and is parked when it has none. The ungrouped lane of an earlier version
-- (jobs waiting when this version came, so not in the rotation) is served when the rotation is empty, and
-- joins the rotation at the next stalled check (registerUngroupedLane).
local function popWaiting(waitKey, lanesKey, activeKey, n)
  local ids = {}
  while #ids < n do
    local lane = rcall('LPOP', lanesKey)
    if not lane then
      local legacy = rcall('LPOP', waitKey, n - #ids)
      if legacy then
        for _, id in ipairs(legacy) do
          ids[#ids + 1] = id
        end
      end
      return ids
    end
    local want = 1
    if rcall('LLEN', lanesKey) == 0 then
      want = n - #ids
    end
    local left = 0
    if lane == '' then
      local popped = rcall('LPOP', waitKey, want)
      if popped then
        for _, id in ipairs(popped) do
          ids[#ids + 1] = id
        end
      end
      left = rcall('LLEN', waitKey)
    else
      local laneKey = lanesKey .. ':' .. lane
      local cap = rcall('HGET', lanesKey .. '-caps', lane)
      local running = 0
      local room = want
      if cap then
        running = runningOf(lanesKey, activeKey, lane)
        room = math.min(want, tonumber(cap) - running)
      end
      if room > 0 then
        local popped = rcall('ZPOPMIN', laneKey, room)
        local got = {}
        for i = 1, #popped, 2 do
          got[#got + 1] = popped[i]
          ids[#ids + 1] = popped[i]
        end
        if cap and #got > 0 then
          -- active at once (not only when fetchMany ends), so that counting this lane again in the same
          -- call sees them
          rcall('SADD', activeKey, unpack(got))
          rcall('SADD', lanesKey .. ':' .. lane .. ':running', unpack(got))
        end
        left = rcall('ZCARD', laneKey)
        if cap and left > 0 and running + #got >= tonumber(cap) then
          rcall('SADD', lanesKey .. '-parked', lane) -- at its cap: out of the rotation until a job of it ends
          left = 0
        end
      elseif rcall('ZCARD', laneKey) > 0 then
        rcall('SADD', lanesKey .. '-parked', lane)
      end
    end
    if left > 0 then
      rcall('RPUSH', lanesKey, lane)
    end
  end
  return ids
end

-- Reserved slots (issue 30, R42): a worker's reserved loop fetches only a job whose priority is at least
-- minPriority. Scans the lanes of the rotation in serving order and peeks each one's head (the job popWaiting
-- would take from it next: ZRANGE 0 0 of a group's lane, LINDEX 0 of the ungrouped lane); the first lane whose
-- head has priority >= minPriority (the record's 'priority' field, absent = 0) and whose group is below its cap
-- moves to the front of the rotation and gives one job through popWaiting, so the running set, the cap's park
-- and the caller's rate check are the same code path as any fetch. Returns {} when no lane qualifies (the
-- rotation is left as it was). Costs 2 commands per lane passed over (the head and its priority; a capped
-- group's cap and running count only when its head qualifies): O(lanes in the rotation) per reserved fetch, bounded.
-- The urgent marker (lanesKey .. '-urgent', a ZSET of one member like the marker) is what a reserved loop
-- blocks on: enqueue sets it for every job of priority > 0, moveToActive again after a reserved fetch that took
-- a job (so that another instance's reserved loop looks too); a reserved fetch that finds nothing leaves both
-- markers as they are. At most URGENT_SCAN lanes from the rotation's front are looked at (about 2 ms of Redis
-- time for 1 000, measured; 25 ms for 10 000 unbounded): with more teams waiting, an urgent lane further back is
-- not seen by a reserved slot until the general fetches have moved it forward (each one serves the front lane
-- and sends it to the back), and meanwhile its turn in the rotation serves it as before.
local URGENT_SCAN = 1000

local function popUrgent(waitKey, lanesKey, activeKey, jobPrefix, minPriority)
  for _, lane in ipairs(rcall('LRANGE', lanesKey, 0, URGENT_SCAN - 1)) do
    local head
    if lane == '' then
      head = rcall('LINDEX', waitKey, 0)
    else
      head = rcall('ZRANGE', lanesKey .. ':' .. lane, 0, 0)[1]
    end
    if head and (tonumber(rcall('HGET', jobPrefix .. head, 'priority')) or 0) >= minPriority then
      local cap = lane ~= '' and rcall('HGET', lanesKey .. '-caps', lane)
      if not cap or runningOf(lanesKey, activeKey, lane) < tonumber(cap) then
        rcall('LREM', lanesKey, 1, lane)
        rcall('LPUSH', lanesKey, lane)
        return popWaiting(waitKey, lanesKey, activeKey, 1)
      end
    end
  end
  return {}
end

-- Puts the ungrouped lane in the rotation when it holds jobs but is not there (jobs of an earlier version).
local function registerUngroupedLane(waitKey, lanesKey)
  if rcall('LLEN', waitKey) > 0 and not rcall('LPOS', lanesKey, '') then
    rcall('RPUSH', lanesKey, '')
  end
end

-- Moves delayed jobs that are due (score <= now) to the end of their lanes, at most 1000 per call; the
-- ungrouped ones with one RPUSH, as before lanes existed.
local function promoteDueJobs(delayedKey, waitKey, lanesKey, seqKey, jobPrefix, now)
  local due = rcall('ZRANGEBYSCORE', delayedKey, '-inf', now, 'LIMIT', 0, 1000)
  if #due > 0 then
    rcall('ZREM', delayedKey, unpack(due))
    local ungrouped = {}
    local urgent = false
    for _, id in ipairs(due) do
      local jobKey = jobPrefix .. id
      local group, priority = laneOf(jobKey)
      if group and group ~= '' then
        enqueue(waitKey, lanesKey, seqKey, id, group, priority)
      else
        ungrouped[#ungrouped + 1] = id
        urgent = urgent or (tonumber(priority) or 0) > 0
      end
      rcall('HSET', jobKey, 'state', 'waiting')
    end
    if #ungrouped > 0 and rcall('RPUSH', waitKey, unpack(ungrouped)) == #ungrouped then
      rcall('RPUSH', lanesKey, '') -- the ungrouped lane was empty: it joins the rotation
    end
    if urgent then
      rcall('ZADD', lanesKey .. '-urgent', '0', '0') -- as enqueue does
    end
  end
end

-- The job's fixed options live in one field, opts = "maxAttempts:backoffMs:backoffJitter:completedMaxAgeSec:
-- completedMaxCount:failedMaxAgeSec:failedMaxCount" (a retention part is empty when the record has none),
-- so that a fetch reads 4 fields instead of 10 and replies with one string (issue 16). Records written
-- before opts existed hold these as fields of their own; legacyOpts builds the same string from them
-- (docs/decisions.md, "job options in one field").
local LEGACY_OPTION_FIELDS = {'maxAttempts', 'backoffMs', 'backoffJitter', 'completedMaxAgeSec',
  'completedMaxCount', 'failedMaxAgeSec', 'failedMaxCount'}

local function legacyOpts(jobKey)
  local f = rcall('HMGET', jobKey, unpack(LEGACY_OPTION_FIELDS))
  for i = 1, #LEGACY_OPTION_FIELDS do
    f[i] = f[i] or ''
  end
  return table.concat(f, ':')
end

-- The failed retention (maxAgeSec, maxCount as strings, '' = none) of an opts string.
local function failedRetention(opts)
  return string.match(opts, '^[^:]*:[^:]*:[^:]*:[^:]*:[^:]*:([^:]*):([^:]*)$')
end

-- Rate limits (issue 30): lanesKey .. '-rates' is a HASH rate key -> 'limit:windowMs' (Queue.setRateLimit). A
-- fetched job whose record names a rate key with a limit is counted in the key's fixed window (the counter
-- lanesKey .. '-rate:' .. key .. ':' .. windowStart); over the limit, fetchMany puts it back in delayed until the
-- window ends: not locked, not an attempt; its id joins the window's held set (the counter's name .. ':held',
-- read by rateStatus.lua for the operator's and the member's view). Returns that end (epoch ms), or nil when the
-- job may start.
local function overRate(lanesKey, rateKey, now, id)
  local cfg = rcall('HGET', lanesKey .. '-rates', rateKey)
  if not cfg then
    return nil
  end
  local limit, window = string.match(cfg, '^(%d+):(%d+)$')
  limit = tonumber(limit)
  window = tonumber(window)
  local start = now - (now % window)
  local counter = lanesKey .. '-rate:' .. rateKey .. ':' .. int(start)
  local n = rcall('INCR', counter)
  if n == 1 then
    rcall('PEXPIRE', counter, window * 2)
  end
  if n > limit then
    rcall('DECR', counter) -- the counter counts the jobs that started
    rcall('SADD', counter .. ':held', id)
    rcall('PEXPIRE', counter .. ':held', window * 2)
    return start + window
  end
  return nil
end

-- Promotes due jobs, then pops up to #tokens waiting jobs and locks the i-th for the execution holding
-- tokens[i]. Returns two values: the fetched jobs as one flat list, five values per job: id, data,
-- attemptsMade, stalledCounter, opts (opts: see above; the worker derives attemptsStarted = attemptsMade +
-- stalledCounter + 1), and, when none was fetched, the ms until the next delayed job is due (>= 1, or -1 when
-- none is delayed).
-- Per job one HMGET reads what the worker needs (a popped id without a record is skipped; a record without
-- opts costs one more HMGET) and one SET writes the lock, whose value is the token followed by '@' and the
-- fetch time (at, the caller's now as a string): the record itself is not written (issue 16, wave 4), so it
-- keeps the state it had in wait; an active job is told by the active set, its start by its lock
-- (docs/decisions.md, "no write to the record at fetch"). The ids join active with one SADD. markerKey:
-- when given (the fetch loop's moveToActive, which may have consumed the marker), the marker is set again
-- while more jobs wait so that another blocked worker wakes up too; nil for the fetch-next of finishing
-- slots, which never consume the marker (only BZPOPMIN does), so the marker they found is still there.
-- minPriority: nil = any waiting job (popWaiting); a number = only jobs of at least that priority (popUrgent, the
-- reserved loop's fetch, R42; its caller passes no markerKey: it consumed the urgent marker, not the marker).
local function fetchMany(waitKey, lanesKey, seqKey, activeKey, delayedKey, markerKey, jobPrefix, tokens, lockMs,
                         now, at, minPriority)
  promoteDueJobs(delayedKey, waitKey, lanesKey, seqKey, jobPrefix, now)
  unparkFree(lanesKey, activeKey)
  local rated = rcall('EXISTS', lanesKey .. '-rates') == 1
  local suffix = '@' .. at
  local jobs = {}
  local ids = {}
  while #ids < #tokens do
    local popped
    if minPriority then
      popped = popUrgent(waitKey, lanesKey, activeKey, jobPrefix, minPriority)
    else
      popped = popWaiting(waitKey, lanesKey, activeKey, #tokens - #ids)
    end
    if #popped == 0 then
      break
    end
    for _, id in ipairs(popped) do
      local jobKey = jobPrefix .. id
      local f = rcall('HMGET', jobKey, 'data', 'attemptsMade', 'stalledCounter', 'opts', 'rate', 'group')
      local limitedUntil = nil
      if not f[1] then
        rcall('SREM', activeKey, id) -- a capped lane's id is active at once (popWaiting)
      elseif rated and f[5] then
        limitedUntil = overRate(lanesKey, f[5], now, id)
      end
      if limitedUntil then
        -- over its rate limit: back to delayed until the window ends, neither locked nor an attempt
        rcall('SREM', activeKey, id)
        if f[6] then
          rcall('SREM', lanesKey .. ':' .. f[6] .. ':running', id)
        end
        rcall('ZADD', delayedKey, int(limitedUntil), id)
        rcall('HSET', jobKey, 'state', 'delayed', 'rateLimitedUntil', int(limitedUntil))
      elseif f[1] then
        local n = #ids + 1
        -- GET: the reply is the previous value (nil), not the status OK, which Redis hands to Lua as a
        -- table {ok = 'OK'} built for every call (issue 16)
        rcall('SET', jobKey .. ':lock', tokens[n] .. suffix, 'PX', lockMs, 'GET')
        ids[n] = id
        local j = #jobs
        jobs[j + 1] = id
        jobs[j + 2] = f[1]
        jobs[j + 3] = f[2]
        jobs[j + 4] = f[3]
        jobs[j + 5] = f[4] or legacyOpts(jobKey)
      end
    end
  end
  if #ids > 0 then
    rcall('SADD', activeKey, unpack(ids))
    if markerKey and (rcall('LLEN', lanesKey) > 0 or rcall('LLEN', waitKey) > 0) then
      rcall('ZADD', markerKey, 0, '0')
    end
    return jobs, -1
  end
  local nextDue = rcall('ZRANGE', delayedKey, 0, 0, 'WITHSCORES')[2]
  if nextDue then
    return jobs, math.max(1, tonumber(nextDue) - now)
  end
  return jobs, -1
end

-- The fetch time a lock value written by fetchMany carries (token@at), as a string; nil for a lock value of
-- an earlier version (a bare token), whose fetch wrote processedAt to the record itself.
local function lockedAt(lockValue)
  if string.byte(lockValue, -14) == 64 then -- '@' and 13 digits (epoch ms from 2001 to 2286): no pattern
    return string.sub(lockValue, -13)
  end
  return string.match(lockValue, '@(%d+)$')
end

-- Keys a script deletes are collected in a list ("doomed") and deleted with one DEL by deleteDoomed,
-- so that releasing a lock and trimming a record cost one DEL together. A script calls deleteDoomed
-- before it fetches the next job (which may lock the same job again after a retry) and before it ends.
local function deleteDoomed(doomed)
  if #doomed > 0 then
    rcall('DEL', unpack(doomed))
  end
end

-- Removes the finished jobs ids from setKey and dooms their records.
local function removeFinished(setKey, jobPrefix, ids, doomed)
  if #ids == 0 then
    return 0
  end
  rcall('ZREM', setKey, unpack(ids))
  for _, id in ipairs(ids) do
    doomed[#doomed + 1] = jobPrefix .. id
  end
  return #ids
end

-- Retention (R5): removes the records of setKey (scored by finish time) finished at least maxAgeSec
-- ago, and those beyond the newest maxCount; at most limit of each. nil means no limit of that kind.
-- The count limit reads the oldest with ZRANGE and removes them with ZREMRANGEBYRANK (ties go by member):
-- one more command per call than ZPOPMIN, but ZPOPMIN replies with every popped score formatted as a
-- double ("%.17g"), which cost more per trimmed record than the extra command per call (issue 16). The
-- records are only doomed: the caller deletes them with deleteDoomed.
local function trimFinished(setKey, jobPrefix, maxAgeSec, maxCount, now, limit, doomed)
  local removed = 0
  if maxAgeSec then
    removed = removeFinished(setKey, jobPrefix,
      rcall('ZRANGEBYSCORE', setKey, '-inf', now - maxAgeSec * 1000, 'LIMIT', 0, limit), doomed)
  end
  if maxCount then
    local excess = rcall('ZCARD', setKey) - maxCount
    if excess > 0 then
      local last = int(math.min(excess, limit) - 1)
      local oldest = rcall('ZRANGE', setKey, '0', last)
      rcall('ZREMRANGEBYRANK', setKey, '0', last)
      for _, id in ipairs(oldest) do
        doomed[#doomed + 1] = jobPrefix .. id
      end
      removed = removed + #oldest
    end
  end
  return removed
end

-- Adds a job that finished for good to its set (kind 'completed' or 'failed') and applies the job's
-- retention (maxAgeSec, maxCount as strings; nil or '' = none of that kind) to the whole set, as BullMQ
-- does; trimmed records are doomed. The caller passes the retention (the worker read it with the job's
-- fetch), so nothing is read back from the job or from meta. record: also write it to meta for the
-- periodic trim (the worker asks when its retention differs from what it last recorded, and again once
-- per trim interval).
local function addFinished(setKey, metaKey, jobPrefix, id, kind, now, maxAgeSec, maxCount, record, doomed)
  rcall('ZADD', setKey, now, id)
  if record then
    rcall('HSET', metaKey, kind .. 'MaxAgeSec', maxAgeSec, kind .. 'MaxCount', maxCount)
  end
  trimFinished(setKey, jobPrefix, tonumber(maxAgeSec), tonumber(maxCount), now, 1000, doomed)
end

-- R6: the lock of an active job holds the token of the execution that owns it. If it does, dooms the lock
-- (the caller deletes it with deleteDoomed) and returns true; false (nothing changed) when the lock is lost.
-- Leaves the id in active: a batch removes all of its ids with one SREM.
local function releaseLockKeepActive(jobKey, token, doomed)
  local lockKey = jobKey .. ':lock'
  if rcall('GET', lockKey) ~= token then
    return false
  end
  doomed[#doomed + 1] = lockKey
  return true
end

-- releaseLockKeepActive, and takes the job out of active.
local function releaseLock(activeKey, jobKey, id, token, doomed)
  if not releaseLockKeepActive(jobKey, token, doomed) then
    return false
  end
  rcall('SREM', activeKey, id)
  return true
end
