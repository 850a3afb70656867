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
