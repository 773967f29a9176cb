--[[ requeue-job: offer a failed job again at once, with its new payload.
KEYS[1]   <prefix>{a:<account>}:seq          place-in-line counter of the account
KEYS[2]   <prefix>{a:<account>}:active       activated jobs (sorted set)
ARGV[1]   <prefix>{a:<account>}:             the account's key prefix (same hash slot)
ARGV[2]   job key
ARGV[3]   type
ARGV[4]   partition
ARGV[5]   offer JSON (with the new retries)
ARGV[6]   variables JSON
Returns   1 when the job was put back in its queue, 0 when it was queued already (payload
          updated only)
The job returns to the place in line it had when first pushed, ahead of every job pushed
after it; a job unknown here (lost with a flush) gets a new place at the back.
Publishes "1" on <account prefix>ready:<type>.
]]
local prefix, key, jobType, partition = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local jobKey = prefix .. 'j:' .. key
local job = redis.call('HMGET', jobKey, 'st', 'seq')
redis.call('HSET', jobKey, 'type', jobType, 'p', partition, 'job', ARGV[5], 'vars', ARGV[6])
if job[1] == 'q' then
  redis.call('PUBLISH', prefix .. 'ready:' .. jobType, '1')
  return 0
end
local seq = job[2]
if not seq then
  seq = redis.call('INCR', KEYS[1])
  redis.call('SADD', prefix .. 'p:' .. partition, key)
end
redis.call('HSET', jobKey, 'seq', seq, 'st', 'q')
redis.call('HDEL', jobKey, 'w', 'at')
redis.call('ZREM', KEYS[2], key)
redis.call('ZADD', prefix .. 'q:' .. jobType, seq, key)
redis.call('PUBLISH', prefix .. 'ready:' .. jobType, '1')
return 1
