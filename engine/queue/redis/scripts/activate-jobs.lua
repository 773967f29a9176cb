--[[ activate-jobs: pop up to ARGV[1] queued jobs of one (account, type) and mark them activated.
KEYS[1]   <prefix>{a:<account>}:q:<type>     the queue (sorted set: job key by place in line)
KEYS[2]   <prefix>{a:<account>}:active       activated jobs (sorted set: job key by activation time)
ARGV[1]   max jobs to activate (>= 1)
ARGV[2]   worker name
ARGV[3]   activation time, epoch ms
ARGV[4]   <prefix>{a:<account>}:             the account's key prefix (job hashes …j:<jobKey>,
          same hash slot as the KEYS)
Returns   a flat array, 3 values per activated job in queue order: offer JSON, variables
          JSON (as they are now), partition. Empty when nothing is queued.
No lock timeout is recorded: an activated job stays with its worker (SPEC.md).
]]
local prefix, worker, now = ARGV[4], ARGV[2], ARGV[3]
local want = tonumber(ARGV[1])
local out = {}
while want > 0 do
  local popped = redis.call('ZPOPMIN', KEYS[1], want)
  if #popped == 0 then break end
  for i = 1, #popped, 2 do
    local key = popped[i]
    local jobKey = prefix .. 'j:' .. key
    local job = redis.call('HMGET', jobKey, 'st', 'job', 'vars', 'p')
    -- A queue entry without a queued job behind it is stale: skip it.
    if job[1] == 'q' then
      redis.call('HSET', jobKey, 'st', 'a', 'w', worker, 'at', now)
      redis.call('ZADD', KEYS[2], now, key)
      out[#out + 1] = job[2]
      out[#out + 1] = job[3]
      out[#out + 1] = job[4]
      want = want - 1
    end
  end
end
return out
