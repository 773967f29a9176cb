--[[ push-jobs: queue a batch of jobs of ONE account, idempotent by job key.
KEYS[1]   <prefix>{a:<account>}:seq          place-in-line counter of the account
ARGV[1]   <prefix>{a:<account>}:             the account's key prefix; the job hash
          (…j:<jobKey>), queue (…q:<type>) and partition set (…p:<partition>) are
          derived from it and share KEYS[1]'s hash slot
ARGV[2..] 5 values per job: job key, type, partition, offer JSON, variables JSON
Returns   the number of jobs newly queued (a key already queued or activated is skipped)
Publishes "1" on <account prefix>ready:<type> once for each type that got a job
          (wakes long polls).
]]
local prefix = ARGV[1]
local count = (#ARGV - 1) / 5
if count < 1 then return 0 end
-- One INCRBY for the batch; keys skipped as duplicates leave gaps, which is fine.
local seq = redis.call('INCRBY', KEYS[1], count) - count
local added = 0
local ready = {}
for i = 2, #ARGV, 5 do
  seq = seq + 1
  local key, jobType, partition = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local jobKey = prefix .. 'j:' .. key
  if redis.call('EXISTS', jobKey) == 0 then
    redis.call('HSET', jobKey, 'type', jobType, 'p', partition, 'seq', seq, 'st', 'q',
      'job', ARGV[i + 3], 'vars', ARGV[i + 4])
    redis.call('ZADD', prefix .. 'q:' .. jobType, seq, key)
    redis.call('SADD', prefix .. 'p:' .. partition, key)
    added = added + 1
    ready[jobType] = true
  end
end
for jobType in pairs(ready) do
  redis.call('PUBLISH', prefix .. 'ready:' .. jobType, '1')
end
return added
