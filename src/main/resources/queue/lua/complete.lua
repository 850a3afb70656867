-- complete: if the job's lock holds lockToken, deletes the lock, moves the job from active to
-- completed (state=completed, finishedAt=now, attemptsMade as given: the fetched value + 1, as in BullMQ
-- 5+; the lock guarantees nobody changed it since the fetch), applies the job's completed retention
-- (passed in, R5) to the whole completed set and, when asked, records it in meta; then, when asked,
-- fetches the next job as moveToActive does (one round trip per job while there is work, like BullMQ's
-- moveToFinished with fetch-next). When the lock is lost (missing or another token) nothing changes.
-- Reads nothing of the job's record: what it needs came with the fetch.
--
-- KEYS[1] waitKey            LIST of waiting ids
-- KEYS[2] activeKey          SET of active ids
-- KEYS[3] delayedKey         ZSET of delayed ids
-- KEYS[4] completedKey       ZSET of retained completed ids, score = finish time (epoch ms)
-- KEYS[5] metaKey            HASH of the retention used by the periodic trim
-- ARGV[1] jobPrefix          job key prefix <p>:<q>:job:
-- ARGV[2] jobId              the finishing job
-- ARGV[3] lockToken          token of the finishing execution
-- ARGV[4] attemptsMade       attemptsMade after this execution (fetched value + 1)
-- ARGV[5] keepMaxAgeSec      the job's completed retention: age in s ('' = no age limit)
-- ARGV[6] keepMaxCount       the job's completed retention: newest records kept ('' = no count limit)
-- ARGV[7] recordRetention    1 = also write that retention to meta, 0 = do not
-- ARGV[8] fetchNextJob       1 = fetch the next job in the same call, 0 = do not
-- ARGV[9] nextLockToken      token for the next job ('' when not fetching)
-- ARGV[10] lockDurationMs    lock TTL of the next job
--
-- Reply: {-1} lock lost (nothing changed); {1} completed; {1, <moveToActive reply>} when fetching.

--!include helpers.lua

local waitKey = KEYS[1]
local activeKey = KEYS[2]
local delayedKey = KEYS[3]
local completedKey = KEYS[4]
local metaKey = KEYS[5]
local jobPrefix = ARGV[1]
local jobId = ARGV[2]
local lockToken = ARGV[3]
local attemptsMade = ARGV[4]
local keepMaxAgeSec = ARGV[5]
local keepMaxCount = ARGV[6]
local recordRetention = ARGV[7]
local fetchNextJob = ARGV[8]
local nextLockToken = ARGV[9]
local lockDurationMs = ARGV[10]

local jobKey = jobPrefix .. jobId
local doomed = {}
if not releaseLock(activeKey, jobKey, jobId, lockToken, doomed) then
  return {-1}
end
local now = nowMs()
rcall('HSET', jobKey, 'state', 'completed', 'finishedAt', now, 'attemptsMade', attemptsMade)
addFinished(completedKey, metaKey, jobPrefix, jobId, 'completed', now, keepMaxAgeSec, keepMaxCount,
  recordRetention == '1', doomed)
deleteDoomed(doomed) -- the lock and the trimmed records, one DEL
if fetchNextJob == '1' then
  return {1, fetchNext(waitKey, activeKey, delayedKey, nil, jobPrefix, nextLockToken, lockDurationMs, now)}
end
return {1}
