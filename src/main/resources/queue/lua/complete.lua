-- complete: if the job's lock holds lockToken, deletes the lock, moves the job from active to
-- completed (state=completed, finishedAt=now, attemptsMade + 1 as in BullMQ 5+), applies the job's
-- completed retention to the whole completed set (R5) and records it in meta; then, when asked, fetches
-- the next job as moveToActive does (one round trip per job while there is work, like BullMQ's
-- moveToFinished with fetch-next). When the lock is lost (missing or another token) nothing changes.
--
-- KEYS[1] waitKey            LIST of waiting ids
-- KEYS[2] activeKey          SET of active ids
-- KEYS[3] delayedKey         ZSET of delayed ids
-- KEYS[4] markerKey          ZSET "there may be work"
-- KEYS[5] completedKey       ZSET of retained completed ids, score = finish time (epoch ms)
-- KEYS[6] metaKey            HASH of the retention used by the periodic trim
-- ARGV[1] jobPrefix          job key prefix <p>:<q>:job:
-- ARGV[2] jobId              the finishing job
-- ARGV[3] lockToken          token of the finishing execution
-- ARGV[4] fetchNextJob       1 = fetch the next job in the same call, 0 = do not
-- ARGV[5] nextLockToken      token for the next job ('' when not fetching)
-- ARGV[6] lockDurationMs     lock TTL of the next job
--
-- Reply: {-1} lock lost (nothing changed); {1} completed; {1, <moveToActive reply>} when fetching.

--!include helpers.lua

local waitKey = KEYS[1]
local activeKey = KEYS[2]
local delayedKey = KEYS[3]
local markerKey = KEYS[4]
local completedKey = KEYS[5]
local metaKey = KEYS[6]
local jobPrefix = ARGV[1]
local jobId = ARGV[2]
local lockToken = ARGV[3]
local fetchNextJob = ARGV[4]
local nextLockToken = ARGV[5]
local lockDurationMs = ARGV[6]

local jobKey = jobPrefix .. jobId
if not releaseLock(activeKey, jobKey, jobId, lockToken) then
  return {-1}
end
local now = nowMs()
-- Like BullMQ 5+, a successful execution counts as an attempt made too.
rcall('HINCRBY', jobKey, 'attemptsMade', 1)
rcall('HSET', jobKey, 'state', 'completed', 'finishedAt', now)
addFinished(completedKey, metaKey, jobPrefix, jobId, 'completed', now)
if fetchNextJob == '1' then
  return {1, fetchNext(waitKey, activeKey, delayedKey, markerKey, jobPrefix, nextLockToken, lockDurationMs, now)}
end
return {1}
