-- extendLocks (R6): PEXPIRE of each lock that still holds its execution's token. A missing lock is not
-- re-created.
--
-- KEYS[1..] lockKeys         the lock keys <p>:<q>:job:<id>:lock of the in-flight jobs
-- ARGV[1] lockDurationMs     the new TTL
-- ARGV[2..] tokens           the token of each lock key, in order: ARGV[i + 1] belongs to KEYS[i]
--
-- Reply: the 1-based indexes i of the locks that were missing or held by another token (not extended).

local lockKeys = KEYS
local lockDurationMs = ARGV[1]

local lost = {}
for i, lockKey in ipairs(lockKeys) do
  if redis.call('GET', lockKey) == ARGV[i + 1] then
    redis.call('PEXPIRE', lockKey, lockDurationMs)
  else
    lost[#lost + 1] = i
  end
end
return lost
