import { LUA_PRELUDE } from './prelude.lua';

/**
 * Deletes the counter buckets of the last tier that started before a time (the retention sweep's counter step).
 *
 * KEYS[1] the prefix. ARGV[1] clock override (unused). ARGV[2] the last tier's bucketMs, ARGV[3] cut-off in epoch ms.
 * Counters live in P..'ctr' (HASH job|bucketMs|bucketStart|field → n).
 *
 * Returns how many buckets were deleted.
 */
export const LUA_PURGE_COUNTERS = `${LUA_PRELUDE}
local kv = redis.call('HGETALL', P .. 'ctr')
local gone = {}
local n = 0
for i = 1, #kv, 2 do
  local job, ms, start = string.match(kv[i], '^(.*)|(%-?%d+)|(%-?%d+)|%a+$')
  if ms == ARGV[2] and tonumber(start) < tonumber(ARGV[3]) then
    redis.call('HDEL', P .. 'ctr', kv[i])
    local bucket = job .. '|' .. start
    if not gone[bucket] then
      gone[bucket] = true
      n = n + 1
    end
  end
end
return n
`;
