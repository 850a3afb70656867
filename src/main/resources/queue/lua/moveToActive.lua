-- moveToActive: moves due delayed jobs (score <= now, at most 1000) to the end of wait, pops the first
-- waiting id, adds it to active and locks it for the execution holding lockToken (R6):
-- SET <job>:lock lockToken PX lockDurationMs; attemptsStarted + 1, state=active, processedAt=now.
-- Re-sets the marker when more jobs wait, so that another blocked worker wakes up too.
--
-- KEYS[1] waitKey            LIST of waiting ids
-- KEYS[2] activeKey          SET of active ids
-- KEYS[3] delayedKey         ZSET of delayed ids, score = due time (epoch ms)
-- KEYS[4] markerKey          ZSET "there may be work"
-- ARGV[1] jobPrefix          job key prefix <p>:<q>:job: (for the popped id)
-- ARGV[2] lockToken          token of the execution that will own the job
-- ARGV[3] lockDurationMs     lock TTL
--
-- Reply: {1, id, data, attemptsMade, attemptsStarted, opts} (opts: the job's fixed options, see helpers.lua),
-- or {0, ms until the next delayed job is due} ({0, -1} when nothing is delayed). See fetchNext in helpers.lua.

--!include helpers.lua

local waitKey = KEYS[1]
local activeKey = KEYS[2]
local delayedKey = KEYS[3]
local markerKey = KEYS[4]
local jobPrefix = ARGV[1]
local lockToken = ARGV[2]
local lockDurationMs = ARGV[3]

return fetchNext(waitKey, activeKey, delayedKey, markerKey, jobPrefix, lockToken, lockDurationMs, nowMs())
