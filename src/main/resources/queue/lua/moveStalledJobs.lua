-- moveStalledJobs (R6, BullMQ moveStalledJobsToWait): unless another worker ran the check within the
-- interval (guard SET NX PX), every id in active whose lock key is gone is stalled: it leaves active and
-- gets stalledCounter + 1; if stalledCounter > maxStalledCount it fails for good (state=failed,
-- exhausted=1, failedReason, the job's failed retention applied and recorded in meta, R5), else it goes
-- back to waiting (marker set): a grouped job at the head of its group's lane (enqueueFirst in helpers.lua:
-- the next fetch of the group takes it over), an ungrouped one at the end of wait. attemptsMade is not incremented by a stall.
-- Single phase: moveToActive sets the lock in the same script that makes a job active, so an active job
-- without a lock key has really lost its lock (BullMQ's two-pass "stalled" set is not needed).
--
-- KEYS[1] waitKey            LIST of waiting ids
-- KEYS[2] activeKey          SET of active ids
-- KEYS[3] markerKey          ZSET "there may be work"
-- KEYS[4] failedKey          ZSET of retained failed ids
-- KEYS[5] metaKey            HASH of the retention used by the periodic trim
-- KEYS[6] guardKey           the stalled-check guard <p>:<q>:stalled-check
-- KEYS[7] lanesKey           LIST of the lanes holding waiting jobs, in serving order (helpers.lua)
-- KEYS[8] seqKey             STRING, the queue's sequence that orders a group's lane
-- ARGV[1] jobPrefix          job key prefix <p>:<q>:job:
-- ARGV[2] maxStalledCount    stalls allowed; the next one fails the job
-- ARGV[3] guardTtlMs         guard TTL (slightly below the check interval, see docs/queue.md)
-- ARGV[4] failedReason       reason recorded on a job that stalled too often
--
-- Reply: one {jobId, failed (1/0), attemptsMade} per stalled job; empty when another worker ran the
-- check within the interval.

--!include helpers.lua

local waitKey = KEYS[1]
local activeKey = KEYS[2]
local markerKey = KEYS[3]
local failedKey = KEYS[4]
local metaKey = KEYS[5]
local guardKey = KEYS[6]
local lanesKey = KEYS[7]
local seqKey = KEYS[8]
local jobPrefix = ARGV[1]
local maxStalledCount = ARGV[2]
local guardTtlMs = ARGV[3]
local failedReason = ARGV[4]

if not rcall('SET', guardKey, '1', 'NX', 'PX', guardTtlMs) then
  return {}
end
local now = nowMs()
local maxStalled = tonumber(maxStalledCount)
local stalled = {}
local doomed = {}
for _, id in ipairs(rcall('SMEMBERS', activeKey)) do
  local jobKey = jobPrefix .. id
  if rcall('EXISTS', jobKey .. ':lock') == 0 then
    rcall('SREM', activeKey, id)
    if rcall('EXISTS', jobKey) == 1 then
      local count = rcall('HINCRBY', jobKey, 'stalledCounter', 1)
      local f = rcall('HMGET', jobKey, 'attemptsMade', 'opts', 'group', 'priority')
      local attemptsMade = tonumber(f[1])
      if count > maxStalled then
        rcall('HSET', jobKey, 'state', 'failed', 'failedReason', failedReason, 'finishedAt', now, 'exhausted', 1)
        local keepMaxAgeSec, keepMaxCount = failedRetention(f[2] or legacyOpts(jobKey))
        addFinished(failedKey, metaKey, jobPrefix, id, 'failed', now, keepMaxAgeSec or '', keepMaxCount or '',
          (keepMaxAgeSec or '') ~= '', doomed)
        stalled[#stalled + 1] = {id, 1, attemptsMade}
      else
        enqueueFirst(waitKey, lanesKey, seqKey, id, f[3], f[4])
        rcall('HSET', jobKey, 'state', 'waiting')
        rcall('ZADD', markerKey, 0, '0')
        stalled[#stalled + 1] = {id, 0, attemptsMade}
      end
    end
  end
end
deleteDoomed(doomed)
registerUngroupedLane(waitKey, lanesKey)
unparkFree(lanesKey, activeKey) -- a stalled job of a capped group freed its place (issue 30)
if rcall('LLEN', lanesKey) > 0 then
  rcall('ZADD', markerKey, 0, '0')
end
return stalled
