-- heartbeat (R22): publishes (ttlMs > 0) or deletes (ttlMs = 0) a worker's heartbeat key and registers
-- or unregisters the worker id: SET key value PX ttl + SADD, or DEL + SREM.
--
-- KEYS[1] heartbeatKey       <p>:<q>:workers:<workerId>
-- KEYS[2] workersKey         SET of worker ids <p>:<q>:workers
-- ARGV[1] workerId           the worker
-- ARGV[2] ttlMs              heartbeat TTL; 0 = delete
-- ARGV[3] value              who the worker is ("<pid>@<host> concurrency=<n>")
--
-- Reply: 1

local heartbeatKey = KEYS[1]
local workersKey = KEYS[2]
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
return 1
