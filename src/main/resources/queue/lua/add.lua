-- add (R2): adds a job unless a record with its id exists in any state (retained completed or failed
-- records included). Creates the record and puts the id at the end of wait, or in delayed at
-- now + delayMs; sets the marker so that a blocked worker wakes up, unless the job joined a wait list that
-- already held jobs: then the marker is still set, or the worker that popped it is about to fetch and sets
-- it again while jobs wait (moveToActive), so one ZADD per burst instead of one per job.
--
-- KEYS[1] jobKey             the job hash <p>:<q>:job:<jobId>
-- KEYS[2] waitKey            LIST of waiting ids
-- KEYS[3] delayedKey         ZSET of delayed ids, score = due time (epoch ms)
-- KEYS[4] markerKey          ZSET "there may be work"
-- ARGV[1] jobId              the caller's job id (no ':')
-- ARGV[2] data               the payload
-- ARGV[3] maxAttempts        executions allowed, the first included (R4)
-- ARGV[4] backoffMs          base delay of the exponential retry backoff
-- ARGV[5] backoffJitter      1 = jitter, 0 = none
-- ARGV[6] delayMs            0 = waiting at once, else delayed by this many ms
-- ARGV[7] completedMaxAgeSec retention of the completed record (R5)
-- ARGV[8] completedMaxCount
-- ARGV[9] failedMaxAgeSec    retention of the failed record (R5)
-- ARGV[10] failedMaxCount
--
-- Reply: 1 added (waiting, or delayed when delayMs > 0), 0 duplicate (nothing changed).

--!include helpers.lua

local jobKey = KEYS[1]
local waitKey = KEYS[2]
local delayedKey = KEYS[3]
local markerKey = KEYS[4]
local jobId = ARGV[1]
local data = ARGV[2]
local maxAttempts = ARGV[3]
local backoffMs = ARGV[4]
local backoffJitter = ARGV[5]
local delayMs = ARGV[6]
local completedMaxAgeSec = ARGV[7]
local completedMaxCount = ARGV[8]
local failedMaxAgeSec = ARGV[9]
local failedMaxCount = ARGV[10]

if rcall('EXISTS', jobKey) == 1 then
  return 0
end
local now = nowMs()
local delay = tonumber(delayMs)
local state = 'waiting'
if delay > 0 then
  state = 'delayed'
end
rcall('HSET', jobKey, 'data', data, 'state', state, 'maxAttempts', maxAttempts,
  'backoffMs', backoffMs, 'backoffJitter', backoffJitter,
  'completedMaxAgeSec', completedMaxAgeSec, 'completedMaxCount', completedMaxCount,
  'failedMaxAgeSec', failedMaxAgeSec, 'failedMaxCount', failedMaxCount,
  'attemptsMade', 0, 'attemptsStarted', 0, 'stalledCounter', 0, 'progress', 0, 'addedAt', now)
if delay > 0 then
  rcall('ZADD', delayedKey, now + delay, jobId)
  rcall('ZADD', markerKey, 0, '0') -- blocked workers recompute how long to wait
elseif rcall('RPUSH', waitKey, jobId) == 1 then
  rcall('ZADD', markerKey, 0, '0')
end
return 1
