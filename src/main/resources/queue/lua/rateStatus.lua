-- rateStatus (issue 30): each rate limit's state in the current window of the Redis clock, for an operator's view
-- and for the reason a member sees on a waiting task ("rate limit, next at ...").
--
-- KEYS[1] lanesKey           LIST of the lanes holding waiting jobs (helpers.lua); the rate keys derive from it
-- KEYS[2] delayedKey         ZSET of delayed ids, score = due time (epoch ms)
--
-- Reply: a flat list, six values per rate limit: rate key, limit, windowMs, jobs of the key started in the
-- current window, jobs of it held back in this window that are still delayed until the window's end (a held job
-- that was removed or cancelled since is not counted), and the window's end (epoch ms).

--!include helpers.lua

local lanesKey = KEYS[1]
local delayedKey = KEYS[2]
local now = nowMs()

local out = {}
local cfg = rcall('HGETALL', lanesKey .. '-rates')
for i = 1, #cfg, 2 do
  local key = cfg[i]
  local limit, window = string.match(cfg[i + 1], '^(%d+):(%d+)$')
  if limit then
    window = tonumber(window)
    local start = now - (now % window)
    local counter = lanesKey .. '-rate:' .. key .. ':' .. int(start)
    local finish = start + window
    local held = 0
    for _, id in ipairs(rcall('SMEMBERS', counter .. ':held')) do
      if tonumber(rcall('ZSCORE', delayedKey, id)) == finish then
        held = held + 1
      end
    end
    out[#out + 1] = key
    out[#out + 1] = limit
    out[#out + 1] = int(window)
    out[#out + 1] = rcall('GET', counter) or '0'
    out[#out + 1] = held
    out[#out + 1] = int(finish)
  end
end
return out
