--[[ append-if-below: append a command to a partition's stream unless its backlog is already
`limit` entries or more (backpressure), checked and appended in one step so that API pods
appending at the same time cannot overshoot the limit, in one round trip instead of XLEN + XADD.
KEYS[1]   <prefix>{p<partition>}:commands    the partition's command stream
ARGV[1]   limit: append only while the stream holds fewer entries than this
ARGV[2]   last-resort MAXLEN of the stream (approximate trimming, as a plain append does)
ARGV[3]   command key (entry field k)
ARGV[4]   payload JSON (entry field d)
ARGV[5]   reply channel (entry field r); "" for none
Returns   the new entry id, or false (nil) when the stream is full: nothing was appended
]]
if redis.call('XLEN', KEYS[1]) >= tonumber(ARGV[1]) then return false end
if ARGV[5] == '' then
  return redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'k', ARGV[3], 'd', ARGV[4])
end
return redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'k', ARGV[3], 'd', ARGV[4], 'r', ARGV[5])
