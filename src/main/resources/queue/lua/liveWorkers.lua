-- liveWorkers (R22): the registered worker ids whose heartbeat key still exists; prunes the others.
--
-- KEYS[1] workersKey         SET of worker ids <p>:<q>:workers
-- ARGV[1] heartbeatPrefix    heartbeat key prefix <p>:<q>:workers:
--
-- Reply: the live worker ids

local workersKey = KEYS[1]
local heartbeatPrefix = ARGV[1]

local live = {}
for _, id in ipairs(redis.call('SMEMBERS', workersKey)) do
  if redis.call('EXISTS', heartbeatPrefix .. id) == 1 then
    live[#live + 1] = id
  else
    redis.call('SREM', workersKey, id)
  end
end
return live
