--[[ rebuild-finish: after rebuild-upsert, drop the partition's jobs of ONE account that
Postgres no longer has, and make the staging set the partition set.
KEYS[1]   <prefix>{a:<account>}:p:<p>        job keys of the partition held for the account
KEYS[2]   <prefix>{a:<account>}:rebuild:<p>  staging set filled by rebuild-upsert
KEYS[3]   <prefix>{a:<account>}:active       activated jobs (sorted set)
ARGV[1]   <prefix>{a:<account>}:             the account's key prefix (same hash slot)
ARGV[2]   "1" when rebuild-upsert ran for this account in this rebuild, "0" when Postgres
          has no job of the account on the partition (a leftover staging set is ignored)
Returns   { jobs removed, jobs the account still has on the partition }
]]
local prefix = ARGV[1]
if ARGV[2] ~= '1' then redis.call('DEL', KEYS[2]) end
local stale = redis.call('SDIFF', KEYS[1], KEYS[2])
for _, key in ipairs(stale) do
  local jobKey = prefix .. 'j:' .. key
  local jobType = redis.call('HGET', jobKey, 'type')
  if jobType then redis.call('ZREM', prefix .. 'q:' .. jobType, key) end
  redis.call('ZREM', KEYS[3], key)
  redis.call('DEL', jobKey)
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('RENAME', KEYS[2], KEYS[1])
else
  redis.call('DEL', KEYS[1])
end
return { #stale, redis.call('SCARD', KEYS[1]) }
