-- remove: deletes a job record, its lock and its id from every list and set, unless the job is active
-- with a live lock.
--
-- KEYS[1] jobKey             the job hash <p>:<q>:job:<jobId>
-- KEYS[2] lockKey            its lock <p>:<q>:job:<jobId>:lock
-- KEYS[3] waitKey            LIST of waiting ids
-- KEYS[4] activeKey          SET of active ids
-- KEYS[5] delayedKey         ZSET of delayed ids
-- KEYS[6] completedKey       ZSET of retained completed ids
-- KEYS[7] failedKey          ZSET of retained failed ids
-- KEYS[8] lanesKey           LIST of the lanes holding waiting jobs, in serving order (helpers.lua)
-- ARGV[1] jobId              the job to remove
--
-- Reply: 1 removed, 0 no such job, -1 refused (active and locked).

--!include helpers.lua

local jobKey = KEYS[1]
local lockKey = KEYS[2]
local waitKey = KEYS[3]
local activeKey = KEYS[4]
local delayedKey = KEYS[5]
local completedKey = KEYS[6]
local failedKey = KEYS[7]
local lanesKey = KEYS[8]
local jobId = ARGV[1]

if rcall('EXISTS', jobKey) == 0 then
  return 0
end
if rcall('SISMEMBER', activeKey, jobId) == 1 and rcall('EXISTS', lockKey) == 1 then
  return -1
end
local group = rcall('HGET', jobKey, 'group')
dequeue(waitKey, lanesKey, jobId, group)
rcall('SREM', activeKey, jobId)
rcall('ZREM', delayedKey, jobId)
rcall('ZREM', completedKey, jobId)
rcall('ZREM', failedKey, jobId)
rcall('DEL', jobKey, lockKey)
return 1
