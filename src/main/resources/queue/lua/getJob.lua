-- getJob: one consistent read of a job for Queue.getJob: its record, whether it is active and its lock.
-- A fetch no longer writes the record (issue 16, wave 4; fetchMany in helpers.lua), so an active job is told
-- by the active set, and the start of its execution by the fetch time its lock value carries (token@at);
-- a job fetched by an earlier version has state=active and processedAt in its record and a bare token. A
-- completion no longer writes finishedAt: the finish time of a completed job is its score in completed.
--
-- KEYS[1] jobKey             the job hash <p>:<q>:job:<jobId>
-- KEYS[2] lockKey            its lock <p>:<q>:job:<jobId>:lock
-- KEYS[3] activeKey          SET of active ids
-- KEYS[4] completedKey       ZSET of retained completed ids, score = finish time (epoch ms)
-- ARGV[1] jobId              the job
--
-- Reply: {} when there is no record; else {fields, active (1/0), lock value or '', completed score or ''},
-- fields = the record as HGETALL returns it (field, value, field, value, ...).

local jobKey = KEYS[1]
local lockKey = KEYS[2]
local activeKey = KEYS[3]
local completedKey = KEYS[4]
local jobId = ARGV[1]

local fields = redis.call('HGETALL', jobKey)
if #fields == 0 then
  return {}
end
return {fields, redis.call('SISMEMBER', activeKey, jobId), redis.call('GET', lockKey) or '',
  redis.call('ZSCORE', completedKey, jobId) or ''}
