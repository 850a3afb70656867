-- complete: completes a batch of jobs, each if its lock holds the execution's token (R6): deletes the
-- lock, moves the job from active to completed (state=completed, finishedAt=now, attemptsMade as given:
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
-- ARGV[1] jobPrefix          job key prefix <p>:<q>:job:
-- ARGV[2] lockDurationMs     lock TTL of the fetched jobs
-- ARGV[3] recordRetention    1 = write ARGV[4], ARGV[5] to meta as the completed retention, 0 = do not
-- ARGV[4] recordMaxAgeSec    ('' = no age limit)
-- ARGV[5] recordMaxCount     ('' = no count limit)
-- ARGV[6] finishing          n, the number of finishing jobs
-- ARGV[7] fetching           m, the number of jobs to fetch (0 = none)
-- ARGV[8..] jobsThenTokens   n groups of 6: jobId, lockToken, attemptsMade after this execution,
--                            keepMaxAgeSec ('' = no age limit), keepMaxCount ('' = no count limit),
--                            progress ('' = unchanged); then m lock tokens: the i-th fetched job is
--                            locked for the i-th token
--
-- Reply: {statuses, fetched, nextDue}: statuses[i] = 1 completed, -1 lock lost (nothing changed);
-- fetched = the jobs fetched (see fetchMany in helpers.lua), at most m; nextDue = ms until the next
-- delayed job is due when none was fetched (-1 when none is delayed, or when jobs were fetched).

--!include helpers.lua

local waitKey = KEYS[1]
local activeKey = KEYS[2]
local delayedKey = KEYS[3]
local completedKey = KEYS[4]
local metaKey = KEYS[5]
local jobPrefix = ARGV[1]
local lockDurationMs = ARGV[2]
local recordRetention = ARGV[3]
local recordMaxAgeSec = ARGV[4]
local recordMaxCount = ARGV[5]
local finishing = ARGV[6]
local fetching = ARGV[7]
local n = tonumber(finishing)
local m = tonumber(fetching)

local now = nowMs()
local nowText = int(now)
local doomed = {}
local statuses = {}
local finished = {}
local scored = {}
local retentions = {}
local retentionOrder = {}
for i = 1, n do
  local base = 7 + (i - 1) * 6
  local id = ARGV[base + 1]
  local jobKey = jobPrefix .. id
  if releaseLockKeepActive(jobKey, ARGV[base + 2], doomed) then
    local progress = ARGV[base + 6]
    if progress == '' then
      rcall('HSET', jobKey, 'state', 'completed', 'finishedAt', nowText, 'attemptsMade', ARGV[base + 3])
    else
      rcall('HSET', jobKey, 'state', 'completed', 'finishedAt', nowText, 'attemptsMade', ARGV[base + 3],
        'progress', progress)
    end
    finished[#finished + 1] = id
    scored[#scored + 1] = nowText
    scored[#scored + 1] = id
    local keep = ARGV[base + 4] .. '|' .. ARGV[base + 5]
    if not retentions[keep] then
      retentions[keep] = {ARGV[base + 4], ARGV[base + 5]}
      retentionOrder[#retentionOrder + 1] = keep
    end
    statuses[i] = 1
  else
    statuses[i] = -1
  end
end
if #finished > 0 then
  rcall('SREM', activeKey, unpack(finished))
  rcall('ZADD', completedKey, unpack(scored))
  if recordRetention == '1' then
    rcall('HSET', metaKey, 'completedMaxAgeSec', recordMaxAgeSec, 'completedMaxCount', recordMaxCount)
  end
  for _, keep in ipairs(retentionOrder) do
    local r = retentions[keep]
    trimFinished(completedKey, jobPrefix, tonumber(r[1]), tonumber(r[2]), now, 1000, doomed)
  end
end
deleteDoomed(doomed) -- the locks and the trimmed records, one DEL
if m == 0 then
  return {statuses, {}, -1}
end
local tokens = {}
for i = 1, m do
  tokens[i] = ARGV[7 + n * 6 + i]
end
local fetched, nextDue = fetchMany(waitKey, activeKey, delayedKey, nil, jobPrefix, tokens, lockDurationMs, now)
return {statuses, fetched, nextDue}
