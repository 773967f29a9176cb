--[[ update-variables: replace the variables of a job that is queued or activated.
KEYS[1]   <prefix>{a:<account>}:j:<jobKey>   the job hash
ARGV[1]   variables JSON
Returns   1 when the job exists (updated), 0 when it is unknown (nothing created)
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'vars', ARGV[1])
return 1
