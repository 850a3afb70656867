-- add (R2): adds a job unless a record with its id exists in any state (retained completed or failed
-- records included). Creates the record and puts the id at the end of its lane (issue 30: its group's, or
-- the ungrouped wait list), or in delayed at now + delayMs; sets the marker so that a blocked worker wakes up,
-- unless the job joined a lane that already held jobs: then the marker is still set, or the worker that popped
-- it is about to fetch and sets it again while jobs wait (moveToActive), so one ZADD per burst instead of one
-- per job.
--
-- KEYS[1] jobKey             the job hash <p>:<q>:job:<jobId>
-- KEYS[2] waitKey            LIST of waiting ids
-- KEYS[3] delayedKey         ZSET of delayed ids, score = due time (epoch ms)
-- KEYS[4] markerKey          ZSET "there may be work"
-- KEYS[5] lanesKey           LIST of the lanes holding waiting jobs, in serving order (helpers.lua, enqueue)
-- KEYS[6] seqKey             STRING, the queue's sequence that orders a group's lane
-- ARGV[1] jobId              the caller's job id (no ':')
-- ARGV[2] data               the payload
-- ARGV[3] delayMs            0 = waiting at once, else delayed by this many ms
-- ARGV[4] opts               the fixed options "maxAttempts:backoffMs:backoffJitter:completedMaxAgeSec:
--                            completedMaxCount:failedMaxAgeSec:failedMaxCount" (see helpers.lua)
-- ARGV[5] maxAttempts        also as fields of their own, for workers of the previous version during a
-- ARGV[6] backoffMs          rolling upgrade (they read no opts; see docs/decisions.md)
-- ARGV[7] backoffJitter
-- ARGV[8] group              the job's group ('' = none: the ungrouped lane, FIFO)
-- ARGV[9] priority           0-10, higher first within its group (with aging, see helpers.lua); > 0 also sets
--                            the urgent marker when the job waits (enqueue, R42)
-- ARGV[10] rateKey           the rate limit it counts against ('' = none; see overRate in helpers.lua)
--
-- Reply: 1 added (waiting, or delayed when delayMs > 0), 0 duplicate (nothing changed).

--!include helpers.lua

local jobKey = KEYS[1]
local waitKey = KEYS[2]
local delayedKey = KEYS[3]
local markerKey = KEYS[4]
local lanesKey = KEYS[5]
local seqKey = KEYS[6]
local jobId = ARGV[1]
local data = ARGV[2]
local delayMs = ARGV[3]
local opts = ARGV[4]
local maxAttempts = ARGV[5]
local backoffMs = ARGV[6]
local backoffJitter = ARGV[7]
local group = ARGV[8]
local priority = ARGV[9]
local rateKey = ARGV[10]

if rcall('EXISTS', jobKey) == 1 then
  return 0
end
local now = nowMs()
local delay = tonumber(delayMs)
local state = 'waiting'
if delay > 0 then
  state = 'delayed'
end
-- the fields a fetch reads and a completion writes first (a small hash is a listpack, searched from its start)
rcall('HSET', jobKey, 'data', data, 'state', state, 'attemptsMade', '0', 'stalledCounter', '0', 'opts', opts,
  'progress', '0', 'attemptsStarted', '0', 'addedAt', int(now),
  'maxAttempts', maxAttempts, 'backoffMs', backoffMs, 'backoffJitter', backoffJitter)
if group ~= '' then
  rcall('HSET', jobKey, 'group', group, 'priority', priority)
elseif (tonumber(priority) or 0) > 0 then
  rcall('HSET', jobKey, 'priority', priority) -- for a reserved slot's fetch (R42, popUrgent in helpers.lua)
end
if rateKey ~= '' then
  rcall('HSET', jobKey, 'rate', rateKey)
end
if delay > 0 then
  rcall('ZADD', delayedKey, int(now + delay), jobId)
  rcall('ZADD', markerKey, '0', '0') -- blocked workers recompute how long to wait
elseif enqueue(waitKey, lanesKey, seqKey, jobId, group, priority) then
  -- its lane joined the rotation: wake a blocked worker (a lane that held jobs already has the marker set, or
  -- a worker about to fetch that sets it again while jobs wait)
  rcall('ZADD', markerKey, '0', '0')
end
return 1
