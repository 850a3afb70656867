-- complete: completes a batch of jobs, each if its lock holds the execution's token (R6): deletes the
-- lock, moves the job from active to completed (state=completed; the finish time is the job's score in the
-- completed set, not written to the record (issue 16, wave 4); processedAt = the fetch time the lock value
-- carries after '@' (fetchMany in helpers.lua); attemptsMade as given:
-- the fetched value + 1, as in BullMQ 5+; the lock guarantees nobody changed it since the fetch; progress
-- when given, so a final progress report costs no round trip of its own); applies each distinct completed
-- retention of the batch (passed in, R5) to the whole completed set and, when asked, records one in meta;
-- then fetches up to #tokens next jobs as moveToActive does. One round trip completes what every finishing
-- slot of a worker had ready and hands them their next jobs (issue 16: the per-call cost of a script and
-- of the set operations is paid once per batch, not once per job). A job whose lock is lost is left
-- unchanged. Reads nothing of the jobs' records: what it needs came with the fetch.
--
-- KEYS[1] waitKey            LIST of waiting ids
-- KEYS[2] activeKey          SET of active ids
-- KEYS[3] delayedKey         ZSET of delayed ids
-- KEYS[4] completedKey       ZSET of retained completed ids, score = finish time (epoch ms)
-- KEYS[5] metaKey            HASH of the retention used by the periodic trim
-- KEYS[6] lanesKey           LIST of the lanes holding waiting jobs, in serving order (helpers.lua)
-- KEYS[7] seqKey             STRING, the queue's sequence that orders a group's lane
-- ARGV[1] jobPrefix          job key prefix <p>:<q>:job:
-- ARGV[2] lockDurationMs     lock TTL of the fetched jobs
-- ARGV[3] recordRetention    1 = write ARGV[4], ARGV[5] to meta as the completed retention, 0 = do not
-- ARGV[4] recordMaxAgeSec    ('' = no age limit)
-- ARGV[5] recordMaxCount     ('' = no count limit)
-- ARGV[6] groups             g, the number of retention groups of finishing jobs (>= 1)
-- ARGV[7] fetching           m, the number of jobs to fetch (0 = none)
-- ARGV[8..] jobsThenTokens   g groups, each: keepMaxAgeSec ('' = no age limit), keepMaxCount ('' = no count
--                            limit), k, then k jobs of 4 values: jobId, lock value (token@fetchTime, as
--                            fetched), attemptsMade after this execution, progress ('' = unchanged); then m
--                            lock tokens: the i-th fetched job is locked for the i-th token. The completed
--                            retention of a group applies to the whole completed set once the group has
--                            completed a job (issue 16: the retention is sent once per group, not per job).
--
-- Reply: {lost, fetched, nextDue, now}: lost = the positions (1-based, in the order sent) of the jobs whose
-- lock was lost (nothing changed for them); fetched = the jobs fetched, five values each (see fetchMany in
-- helpers.lua), at most m; nextDue = ms until the next delayed job is due when none was fetched (-1 when none
-- is delayed, or when jobs were fetched); now = the fetch time (epoch ms) the fetched jobs' lock values carry
-- after '@'.

--!include helpers.lua

local waitKey = KEYS[1]
local activeKey = KEYS[2]
local delayedKey = KEYS[3]
local completedKey = KEYS[4]
local metaKey = KEYS[5]
local lanesKey = KEYS[6]
local seqKey = KEYS[7]
local jobPrefix = ARGV[1]
local lockDurationMs = ARGV[2]
local recordRetention = ARGV[3]
local recordMaxAgeSec = ARGV[4]
local recordMaxCount = ARGV[5]
local groups = ARGV[6]
local fetching = ARGV[7]
local g = tonumber(groups)
local m = tonumber(fetching)

local now = nowMs()
local nowText = int(now)
local doomed = {}
local lost = {}
local finished = {}
local scored = {}
local trims = {}
local argv = ARGV
local base = 8 -- the next unread ARGV
local position = 0
for _ = 1, g do
  local age, count, k = argv[base], argv[base + 1], tonumber(argv[base + 2])
  base = base + 3
  local completedBefore = #finished
  for _ = 1, k do
    position = position + 1
    local id = argv[base]
    local jobKey = jobPrefix .. id
    local token = argv[base + 1]
    if releaseLockKeepActive(jobKey, token, doomed) then
      local made = argv[base + 2]
      local progress = argv[base + 3]
      local at = lockedAt(token)
      if not at then -- a lock value without the fetch time (not written by fetchMany): processedAt stays as it is
        if progress == '' then
          rcall('HSET', jobKey, 'state', 'completed', 'attemptsMade', made)
        else
          rcall('HSET', jobKey, 'state', 'completed', 'attemptsMade', made, 'progress', progress)
        end
      elseif progress == '' then
        rcall('HSET', jobKey, 'state', 'completed', 'attemptsMade', made, 'processedAt', at)
      else
        rcall('HSET', jobKey, 'state', 'completed', 'attemptsMade', made, 'processedAt', at, 'progress', progress)
      end
      finished[#finished + 1] = id
      scored[#scored + 1] = nowText
      scored[#scored + 1] = id
    else
      lost[#lost + 1] = position
    end
    base = base + 4
  end
  if #finished > completedBefore then
    trims[#trims + 1] = {age, count}
  end
end
if #finished > 0 then
  rcall('SREM', activeKey, unpack(finished))
  rcall('ZADD', completedKey, unpack(scored))
  if recordRetention == '1' then
    rcall('HSET', metaKey, 'completedMaxAgeSec', recordMaxAgeSec, 'completedMaxCount', recordMaxCount)
  end
  for _, keep in ipairs(trims) do
    trimFinished(completedKey, jobPrefix, tonumber(keep[1]), tonumber(keep[2]), now, 1000, doomed)
  end
end
deleteDoomed(doomed) -- the locks and the trimmed records, one DEL
if m == 0 then
  return {lost, {}, -1, nowText}
end
local tokens = {}
for i = 1, m do
  tokens[i] = argv[base + i - 1]
end
local fetched, nextDue = fetchMany(waitKey, lanesKey, seqKey, activeKey, delayedKey, nil, jobPrefix, tokens, lockDurationMs, now,
  nowText)
return {lost, fetched, nextDue, nowText}
