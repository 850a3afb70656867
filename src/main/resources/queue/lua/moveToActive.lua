-- moveToActive: moves due delayed jobs (score <= now, at most 1000) to the end of wait, pops the first
-- waiting id, adds it to active and locks it for the execution holding lockToken (R6):
-- SET <job>:lock lockToken@now PX lockDurationMs (the record is not written: see fetchMany in helpers.lua).
-- Re-sets the marker when more jobs wait, so that another blocked worker wakes up too.
-- With ARGV[4] minPriority (a worker's reserved loop, issue 30, R42), takes only a job of at least that
-- priority (popUrgent in helpers.lua), leaves the marker alone, and sets the urgent marker again when it took one
-- (so that another instance's reserved loop looks too: at most one extra wake-up per fetch); when none
-- qualifies it replies no job and sets neither marker.
--
-- KEYS[1] waitKey            LIST of waiting ids
-- KEYS[2] activeKey          SET of active ids
-- KEYS[3] delayedKey         ZSET of delayed ids, score = due time (epoch ms)
-- KEYS[4] markerKey          ZSET "there may be work"
-- KEYS[5] lanesKey           LIST of the lanes holding waiting jobs, in serving order (helpers.lua)
-- KEYS[6] seqKey             STRING, the queue's sequence that orders a group's lane
-- ARGV[1] jobPrefix          job key prefix <p>:<q>:job: (for the popped id)
-- ARGV[2] lockToken          token of the execution that will own the job
-- ARGV[3] lockDurationMs     lock TTL
-- ARGV[4] minPriority        '' = any waiting job (the general loop); a number = the reserved loop's fetch
--                            (urgent marker: lanesKey .. '-urgent', see helpers.lua)
--
-- Reply: {job, nextDue, now}: job = {} or {id, data, attemptsMade, stalledCounter, opts} (see fetchMany in
-- helpers.lua); nextDue = ms until the next delayed job is due when none was fetched (-1 when nothing is
-- delayed, or when a job was fetched); now = the fetch time (epoch ms) the lock value carries after '@'.

--!include helpers.lua

local waitKey = KEYS[1]
local activeKey = KEYS[2]
local delayedKey = KEYS[3]
local markerKey = KEYS[4]
local lanesKey = KEYS[5]
local seqKey = KEYS[6]
local jobPrefix = ARGV[1]
local lockToken = ARGV[2]
local lockDurationMs = ARGV[3]
local minPriority = ARGV[4]

minPriority = tonumber(minPriority or '') -- nil: any job
local now = nowMs()
local at = int(now)
if minPriority then
  local job, nextDue = fetchMany(waitKey, lanesKey, seqKey, activeKey, delayedKey, nil, jobPrefix, {lockToken},
    lockDurationMs, now, at, minPriority)
  if #job > 0 then
    rcall('ZADD', lanesKey .. '-urgent', '0', '0')
  end
  return {job, nextDue, at}
end
local job, nextDue = fetchMany(waitKey, lanesKey, seqKey, activeKey, delayedKey, markerKey, jobPrefix, {lockToken}, lockDurationMs,
  now, at)
return {job, nextDue, at}
