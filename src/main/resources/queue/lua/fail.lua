-- fail: if the job's lock holds lockToken, deletes the lock, takes the job out of active, counts a
-- failed execution (attemptsMade + 1) and records failedReason and processedAt (the fetch time the lock value
-- carries after '@', fetchMany in helpers.lua). If unrecoverable or attemptsMade >=
-- maxAttempts: state=failed, exhausted=1, finishedAt=now, added to failed with the job's failed
-- retention (passed in) applied (R5). Otherwise (R4) back to delayed at now + retryDelayMs (or to the
-- end of wait when the delay is 0), and the marker is set so that a blocked worker waits no longer than
-- the due time. Then, when asked, fetches the next job as moveToActive does. When the lock is lost
-- nothing changes. The retry delay is computed by the caller for attempt attemptsMade + 1; the lock
-- guarantees that the attemptsMade seen here is that one.
--
-- KEYS[1] waitKey            LIST of waiting ids
-- KEYS[2] activeKey          SET of active ids
-- KEYS[3] delayedKey         ZSET of delayed ids, score = due time (epoch ms)
-- KEYS[4] markerKey          ZSET "there may be work"
-- KEYS[5] failedKey          ZSET of retained failed ids, score = finish time (epoch ms)
-- KEYS[6] metaKey            HASH of the retention used by the periodic trim
-- KEYS[7] lanesKey           LIST of the lanes holding waiting jobs, in serving order (helpers.lua)
-- KEYS[8] seqKey             STRING, the queue's sequence that orders a group's lane
-- ARGV[1] jobPrefix          job key prefix <p>:<q>:job:
-- ARGV[2] jobId              the failing job
-- ARGV[3] lockToken          lock value of the failing execution (token@fetchTime)
-- ARGV[4] failedReason       message of the error (never a stack trace)
-- ARGV[5] unrecoverable      1 = fail for good now, 0 = retry while attempts remain
-- ARGV[6] retryDelayMs       backoff before the retry; 0 = back to wait at once
-- ARGV[7] maxAttempts        the job's maxAttempts (as fetched)
-- ARGV[8] keepMaxAgeSec      the job's failed retention: age in s ('' = no age limit)
-- ARGV[9] keepMaxCount       the job's failed retention: newest records kept ('' = no count limit)
-- ARGV[10] recordRetention   1 = also write that retention to meta, 0 = do not
-- ARGV[11] fetchNextJob      1 = fetch the next job in the same call, 0 = do not
-- ARGV[12] nextLockToken     token for the next job ('' when not fetching)
-- ARGV[13] lockDurationMs    lock TTL of the next job
--
-- Reply: {-1} lock lost (nothing changed); {1, attemptsMade, exhausted (1/0)} and, when fetching,
-- a fourth element with the moveToActive reply ({job, nextDue, now}).

--!include helpers.lua

local waitKey = KEYS[1]
local activeKey = KEYS[2]
local delayedKey = KEYS[3]
local markerKey = KEYS[4]
local failedKey = KEYS[5]
local metaKey = KEYS[6]
local lanesKey = KEYS[7]
local seqKey = KEYS[8]
local jobPrefix = ARGV[1]
local jobId = ARGV[2]
local lockToken = ARGV[3]
local failedReason = ARGV[4]
local unrecoverable = ARGV[5]
local retryDelayMs = ARGV[6]
local maxAttempts = ARGV[7]
local keepMaxAgeSec = ARGV[8]
local keepMaxCount = ARGV[9]
local recordRetention = ARGV[10]
local fetchNextJob = ARGV[11]
local nextLockToken = ARGV[12]
local lockDurationMs = ARGV[13]

local jobKey = jobPrefix .. jobId
local doomed = {}
if not releaseLock(activeKey, jobKey, jobId, lockToken, doomed) then
  return {-1}
end
local now = nowMs()
local attemptsMade = rcall('HINCRBY', jobKey, 'attemptsMade', 1)
local at = lockedAt(lockToken)
if at then
  rcall('HSET', jobKey, 'processedAt', at)
end
local exhausted = 0
if unrecoverable == '1' or attemptsMade >= tonumber(maxAttempts) then
  exhausted = 1
  rcall('HSET', jobKey, 'state', 'failed', 'failedReason', failedReason, 'finishedAt', now, 'exhausted', 1)
  addFinished(failedKey, metaKey, jobPrefix, jobId, 'failed', now, keepMaxAgeSec, keepMaxCount,
    recordRetention == '1', doomed)
else
  local delay = tonumber(retryDelayMs)
  if delay > 0 then
    rcall('ZADD', delayedKey, now + delay, jobId)
    rcall('HSET', jobKey, 'state', 'delayed', 'failedReason', failedReason)
  else
    local group, priority = laneOf(jobKey)
    enqueue(waitKey, lanesKey, seqKey, jobId, group, priority)
    rcall('HSET', jobKey, 'state', 'waiting', 'failedReason', failedReason)
  end
  -- wake a blocked worker so that it waits no longer than this job's due time
  rcall('ZADD', markerKey, 0, '0')
end
deleteDoomed(doomed) -- the lock (and trimmed records), one DEL; before a fetch that may lock this job again
if fetchNextJob == '1' then
  local nowText = int(now)
  local job, nextDue = fetchMany(waitKey, lanesKey, seqKey, activeKey, delayedKey, nil, jobPrefix, {nextLockToken}, lockDurationMs,
    now, nowText)
  return {1, attemptsMade, exhausted, {job, nextDue, nowText}}
end
return {1, attemptsMade, exhausted}
