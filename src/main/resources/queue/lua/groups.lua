-- groups (issue 30): the groups that have waiting jobs or a cap, for an operator's view.
--
-- KEYS[1] lanesKey           LIST of the lanes holding waiting jobs, in serving order (helpers.lua)
-- KEYS[2] activeKey          SET of active ids
--
-- Reply: a flat list, five values per group: group, waiting jobs, cap ('' = none), active jobs of a capped
-- group ('' for an uncapped one: only capped groups are counted here), 1 when the group is at its cap with jobs
-- waiting (parked) else 0.

--!include helpers.lua

local lanesKey = KEYS[1]
local activeKey = KEYS[2]

local seen = {}
local order = {}
local function note(group)
  if group ~= '' and not seen[group] then
    seen[group] = true
    order[#order + 1] = group
  end
end
for _, g in ipairs(rcall('LRANGE', lanesKey, 0, -1)) do
  note(g)
end
for _, g in ipairs(rcall('SMEMBERS', lanesKey .. '-parked')) do
  note(g)
end
local capOf = {}
local caps = rcall('HGETALL', lanesKey .. '-caps')
for i = 1, #caps, 2 do
  capOf[caps[i]] = caps[i + 1]
  note(caps[i])
end
local out = {}
for _, g in ipairs(order) do
  local cap = capOf[g]
  out[#out + 1] = g
  out[#out + 1] = rcall('ZCARD', lanesKey .. ':' .. g)
  out[#out + 1] = cap or ''
  out[#out + 1] = cap and tostring(runningOf(lanesKey, activeKey, g)) or ''
  out[#out + 1] = rcall('SISMEMBER', lanesKey .. '-parked', g)
end
return out
