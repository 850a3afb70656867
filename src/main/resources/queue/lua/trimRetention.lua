-- trimRetention (R5): with the retention recorded in meta, deletes completed and failed records finished
-- at least maxAgeSec ago and those beyond the newest maxCount (record and set membership), at most
-- maxRemovals per set and kind of limit. Never touches wait, active or delayed. The caller repeats it
-- until a call removes less than a full batch.
--
-- KEYS[1] completedKey       ZSET of retained completed ids, score = finish time (epoch ms)
-- KEYS[2] failedKey          ZSET of retained failed ids, score = finish time (epoch ms)
-- KEYS[3] metaKey            HASH completedMaxAgeSec, completedMaxCount, failedMaxAgeSec, failedMaxCount
-- KEYS[4] guardKey           the retention-check guard <p>:<q>:retention-check
-- ARGV[1] jobPrefix          job key prefix <p>:<q>:job:
-- ARGV[2] guardTtlMs         guard TTL; 0 = always run
-- ARGV[3] maxRemovals        most records removed per set and kind of limit
--
-- Reply: {removed completed, removed failed}; {0, 0} when another worker trimmed within the interval.

--!include helpers.lua

local completedKey = KEYS[1]
local failedKey = KEYS[2]
local metaKey = KEYS[3]
local guardKey = KEYS[4]
local jobPrefix = ARGV[1]
local guardTtlMs = ARGV[2]
local maxRemovals = ARGV[3]

if tonumber(guardTtlMs) > 0 and not rcall('SET', guardKey, '1', 'NX', 'PX', guardTtlMs) then
  return {0, 0}
end
local now = nowMs()
local limit = tonumber(maxRemovals)
local m = rcall('HMGET', metaKey, 'completedMaxAgeSec', 'completedMaxCount', 'failedMaxAgeSec', 'failedMaxCount')
local doomed = {}
local removed = {trimFinished(completedKey, jobPrefix, tonumber(m[1]), tonumber(m[2]), now, limit, doomed),
                 trimFinished(failedKey, jobPrefix, tonumber(m[3]), tonumber(m[4]), now, limit, doomed)}
deleteDoomed(doomed)
return removed
