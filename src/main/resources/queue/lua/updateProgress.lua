-- updateProgress (R6): records the progress of an active job if its lock holds lockToken.
--
-- KEYS[1] jobKey             the job hash <p>:<q>:job:<id>
-- KEYS[2] lockKey            its lock <p>:<q>:job:<id>:lock
-- ARGV[1] lockToken          token of the execution reporting
-- ARGV[2] percent            0-100
--
-- Reply: 1 written, 0 lock lost (nothing changed; Java: LockLostException).

local jobKey = KEYS[1]
local lockKey = KEYS[2]
local lockToken = ARGV[1]
local percent = ARGV[2]

if redis.call('GET', lockKey) ~= lockToken then
  return 0
end
redis.call('HSET', jobKey, 'progress', percent)
return 1
