--[[ remove-jobs: forget completed or cancelled jobs of one account, queued or activated.
KEYS[1]   <prefix>{a:<account>}:active       activated jobs (sorted set)
ARGV[1]   <prefix>{a:<account>}:             the account's key prefix (job hashes, queues,
          partition sets derived from it; same hash slot as KEYS[1])
ARGV[2..] job keys
Returns   the number of jobs that were known
]]
local prefix = ARGV[1]
local removed = 0
for i = 2, #ARGV do
  local key = ARGV[i]
  local jobKey = prefix .. 'j:' .. key
  local job = redis.call('HMGET', jobKey, 'type', 'p')
  if job[1] then
    redis.call('ZREM', prefix .. 'q:' .. job[1], key)
    redis.call('SREM', prefix .. 'p:' .. job[2], key)
    redis.call('DEL', jobKey)
    removed = removed + 1
  end
  redis.call('ZREM', KEYS[1], key)
end
return removed
