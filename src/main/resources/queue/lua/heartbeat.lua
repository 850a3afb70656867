-- heartbeat (R22): publishes (ttlMs > 0) or deletes (ttlMs = 0) a worker's heartbeat key and registers
-- or unregisters the worker id: SET key value PX ttl + SADD, or DEL + SREM. Either way the worker's
-- info is kept in the workers-seen hash, so operators see gone workers too (issue 14).
--
-- KEYS[1] heartbeatKey       <p>:<q>:workers:<workerId>
-- KEYS[2] workersKey         SET of worker ids <p>:<q>:workers
-- KEYS[3] workersSeenKey     HASH worker id -> info of every worker seen <p>:<q>:workers-seen
-- ARGV[1] workerId           the worker
-- ARGV[2] ttlMs              heartbeat TTL; 0 = delete
-- ARGV[3] value              the worker's info (JSON); '' leaves the workers-seen hash alone
--
-- Reply: 1

local heartbeatKey = KEYS[1]
local workersKey = KEYS[2]
local workersSeenKey = KEYS[3]
local workerId = ARGV[1]
local ttlMs = ARGV[2]
local value = ARGV[3]

if tonumber(ttlMs) > 0 then
  redis.call('SET', heartbeatKey, value, 'PX', ttlMs)
  redis.call('SADD', workersKey, workerId)
else
  redis.call('DEL', heartbeatKey)
  redis.call('SREM', workersKey, workerId)
end
if value ~= '' then
  redis.call('HSET', workersSeenKey, workerId, value)
end
return 1
