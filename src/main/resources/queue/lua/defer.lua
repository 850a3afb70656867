-- defer: if the job's lock holds lockToken, deletes the lock, takes the job out of active and puts it back in
-- delayed at now + delayMs WITHOUT counting an execution: attemptsMade stays as it was (issue 28; BullMQ's
-- moveToDelayed for a rate-limited job is the model). For an execution that could not start or go on for a
-- reason outside the job (its database or another service unreachable). Counts the deferral in the record
-- (deferrals + 1) and records deferredReason; sets the marker so that a blocked worker waits no longer than
-- the due time. When the lock is lost nothing changes.
--
-- KEYS[1] activeKey          SET of active ids
-- KEYS[2] delayedKey         ZSET of delayed ids, score = due time (epoch ms)
-- KEYS[3] markerKey          ZSET "there may be work"
-- ARGV[1] jobPrefix          job key prefix <p>:<q>:job:
-- ARGV[2] jobId              the deferred job
-- ARGV[3] lockToken          lock value of the deferring execution (token@fetchTime)
-- ARGV[4] delayMs            how long until the job may be fetched again (>= 1)
-- ARGV[5] deferredReason     why (a fixed text of the caller's, never a stack trace)
--
-- Reply: {-1} lock lost (nothing changed); {1, deferrals, attemptsMade}.

--!include helpers.lua

local activeKey = KEYS[1]
local delayedKey = KEYS[2]
local markerKey = KEYS[3]
local jobPrefix = ARGV[1]
local jobId = ARGV[2]
local lockToken = ARGV[3]
local delayMs = ARGV[4]
local deferredReason = ARGV[5]

local jobKey = jobPrefix .. jobId
local doomed = {}
if not releaseLock(activeKey, jobKey, jobId, lockToken, doomed) then
  return {-1}
end
local now = nowMs()
local deferrals = rcall('HINCRBY', jobKey, 'deferrals', 1)
rcall('HSET', jobKey, 'state', 'delayed', 'deferredReason', deferredReason)
rcall('ZADD', delayedKey, now + math.max(1, tonumber(delayMs)), jobId)
rcall('ZADD', markerKey, 0, '0')
deleteDoomed(doomed)
return {1, deferrals, tonumber(rcall('HGET', jobKey, 'attemptsMade') or '0')}
