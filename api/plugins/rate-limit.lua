--[[ rate-limit: take tokens from one account's token bucket (DESIGN §5: 429 with Retry-After).
KEYS[1]   <prefix>{a:<account>}:rate   HASH  t = tokens left (may be fractional), ts = last refill (ms)
ARGV[1]   refill rate, tokens per second (> 0)
ARGV[2]   burst: the bucket's capacity (>= 1)
ARGV[3]   tokens this request costs (normally 1)
Returns   { allowed (1 or 0), tokens left (floored), ms until the cost is available (0 when allowed) }
The clock is the Redis server's (TIME), so API pods with skewed clocks share one bucket fairly.
The key expires once the bucket would be full again, so an idle account costs no memory.
]]
if redis.replicate_commands then redis.replicate_commands() end
local rate, burst, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 't', 'ts')
local tokens, ts = tonumber(state[1]), tonumber(state[2])
if tokens == nil or ts == nil then
  tokens, ts = burst, now
end
-- A failover to a replica with a slower clock must not drain the bucket.
if now > ts then
  tokens = math.min(burst, tokens + (now - ts) * rate / 1000)
  ts = now
end
local allowed, wait = 0, 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
else
  wait = math.ceil((cost - tokens) * 1000 / rate)
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'ts', tostring(ts))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) * 1000 / rate) + 1000)
return { allowed, math.floor(tokens), wait }
