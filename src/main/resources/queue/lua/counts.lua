-- counts: a consistent snapshot of the number of jobs per state.
--
-- KEYS[1] waitKey            LIST of waiting ids
-- KEYS[2] delayedKey         ZSET of delayed ids
-- KEYS[3] activeKey          SET of active ids
-- KEYS[4] completedKey       ZSET of retained completed ids
-- KEYS[5] failedKey          ZSET of retained failed ids
-- KEYS[6] lanesKey           LIST of the lanes holding waiting jobs, in serving order (helpers.lua)
--
-- Reply: {waiting, delayed, active, completed, failed}

local waitKey = KEYS[1]
local delayedKey = KEYS[2]
local activeKey = KEYS[3]
local completedKey = KEYS[4]
local failedKey = KEYS[5]
local lanesKey = KEYS[6]

-- waiting: the ungrouped lane, every group's lane in the rotation (a lane is there while it holds jobs) and
-- every parked one
local waiting = redis.call('LLEN', waitKey)
for _, lane in ipairs(redis.call('LRANGE', lanesKey, 0, -1)) do
  if lane ~= '' then
    waiting = waiting + redis.call('ZCARD', lanesKey .. ':' .. lane)
  end
end
for _, lane in ipairs(redis.call('SMEMBERS', lanesKey .. '-parked')) do -- groups at their cap (issue 30)
  waiting = waiting + redis.call('ZCARD', lanesKey .. ':' .. lane)
end
return {waiting, redis.call('ZCARD', delayedKey), redis.call('SCARD', activeKey),
        redis.call('ZCARD', completedKey), redis.call('ZCARD', failedKey)}
