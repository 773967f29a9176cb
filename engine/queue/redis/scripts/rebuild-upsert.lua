--[[ rebuild-upsert: put back one chunk of a partition's jobs of ONE account from Postgres.
KEYS[1]   <prefix>{a:<account>}:seq          place-in-line counter of the account
KEYS[2]   <prefix>{a:<account>}:active       activated jobs (sorted set)
KEYS[3]   <prefix>{a:<account>}:rebuild:<p>  staging set: job keys seen by this rebuild
ARGV[1]   <prefix>{a:<account>}:             the account's key prefix (same hash slot)
ARGV[2]   partition
ARGV[3]   "1" on the first chunk (starts a fresh staging set), else "0"
ARGV[4..] 7 values per job, in the order jobs should be offered: job key, type, offer JSON,
          variables JSON, "1" when Postgres records it activated else "0", worker, activation
          time (epoch ms; worker and time are ignored when not activated)
Returns   { jobs queued, jobs activated }
A job activated here or in Postgres stays activated (kept worker and time when known here);
every other job is queued, keeping its place in line if it was queued already.
Publishes "1" on <account prefix>ready:<type> for each type that got a queued job.
]]
local prefix, partition = ARGV[1], ARGV[2]
if ARGV[3] == '1' then redis.call('DEL', KEYS[3]) end
local queued, activated = 0, 0
local ready = {}
for i = 4, #ARGV, 7 do
  local key, jobType = ARGV[i], ARGV[i + 1]
  local jobKey = prefix .. 'j:' .. key
  local job = redis.call('HMGET', jobKey, 'st', 'seq', 'type', 'w', 'at')
  local seq = job[2]
  if not seq then seq = redis.call('INCR', KEYS[1]) end
  if job[3] and job[3] ~= jobType then redis.call('ZREM', prefix .. 'q:' .. job[3], key) end
  redis.call('HSET', jobKey, 'type', jobType, 'p', partition, 'seq', seq,
    'job', ARGV[i + 2], 'vars', ARGV[i + 3])
  if job[1] == 'a' or ARGV[i + 4] == '1' then
    local worker, at = job[4], job[5]
    if job[1] ~= 'a' then worker, at = ARGV[i + 5], ARGV[i + 6] end
    redis.call('HSET', jobKey, 'st', 'a', 'w', worker, 'at', at)
    redis.call('ZREM', prefix .. 'q:' .. jobType, key)
    redis.call('ZADD', KEYS[2], at, key)
    activated = activated + 1
  else
    redis.call('HSET', jobKey, 'st', 'q')
    redis.call('HDEL', jobKey, 'w', 'at')
    redis.call('ZADD', prefix .. 'q:' .. jobType, seq, key)
    queued = queued + 1
    ready[jobType] = true
  end
  redis.call('SADD', KEYS[3], key)
  redis.call('SADD', prefix .. 'p:' .. partition, key)
end
for jobType in pairs(ready) do
  redis.call('PUBLISH', prefix .. 'ready:' .. jobType, '1')
end
return { queued, activated }
