-- setGroupCap (issue 30): sets or clears the most jobs of one group active at once, atomically for every
-- worker. Setting a cap counts the group's jobs active now (its running set, see helpers.lua), so a cap set
-- while jobs run is kept from the next fetch on; clearing it forgets the set and brings a parked lane back into
-- the rotation. Sets the marker so that a blocked worker looks again.
--
-- KEYS[1] lanesKey           LIST of the lanes holding waiting jobs, in serving order (helpers.lua)
-- KEYS[2] activeKey          SET of active ids
-- KEYS[3] markerKey          ZSET "there may be work"
-- ARGV[1] jobPrefix          job key prefix <p>:<q>:job:
-- ARGV[2] group              the group
-- ARGV[3] cap                1 or more, or '' to clear
--
-- Reply: the number of the group's jobs active now.

--!include helpers.lua

local lanesKey = KEYS[1]
local activeKey = KEYS[2]
local markerKey = KEYS[3]
local jobPrefix = ARGV[1]
local group = ARGV[2]
local cap = ARGV[3]

local runKey = lanesKey .. ':' .. group .. ':running'
rcall('DEL', runKey)
local running = {}
for _, id in ipairs(rcall('SMEMBERS', activeKey)) do
  if rcall('HGET', jobPrefix .. id, 'group') == group then
    running[#running + 1] = id
  end
end
if cap == '' then
  rcall('HDEL', lanesKey .. '-caps', group)
else
  rcall('HSET', lanesKey .. '-caps', group, cap)
  if #running > 0 then
    rcall('SADD', runKey, unpack(running))
  end
end
unparkFree(lanesKey, activeKey)
if rcall('LLEN', lanesKey) > 0 then
  rcall('ZADD', markerKey, 0, '0')
end
return #running
