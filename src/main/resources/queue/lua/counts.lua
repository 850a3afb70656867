-- counts: a consistent snapshot of the number of jobs per state.
--
-- KEYS[1] waitKey            LIST of waiting ids
-- KEYS[2] delayedKey         ZSET of delayed ids
-- KEYS[3] activeKey          SET of active ids
-- KEYS[4] completedKey       ZSET of retained completed ids
-- KEYS[5] failedKey          ZSET of retained failed ids
--
-- Reply: {waiting, delayed, active, completed, failed}

local waitKey = KEYS[1]
local delayedKey = KEYS[2]
local activeKey = KEYS[3]
local completedKey = KEYS[4]
local failedKey = KEYS[5]

return {redis.call('LLEN', waitKey), redis.call('ZCARD', delayedKey), redis.call('SCARD', activeKey),
        redis.call('ZCARD', completedKey), redis.call('ZCARD', failedKey)}
