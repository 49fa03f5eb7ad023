import { LUA_PRELUDE } from './prelude.lua';

/**
 * Deletes one bounded batch of finished rows of one state that finished before a time, with their steps — the
 * retention sweep's step. The caller repeats it until a batch deletes fewer than the limit.
 *
 * KEYS[1] the prefix. ARGV[1] clock override (unused: the sweep passes its own cut-off). ARGV[2] state (done, failed,
 * dead or cancelled), ARGV[3] cut-off in epoch ms (rows that finished strictly before it go), ARGV[4] batch size.
 *
 * Returns how many rows were deleted.
 */
export const LUA_PURGE_JOBS = `${LUA_PRELUDE}
local ids = redis.call('ZRANGEBYSCORE', P .. 'fin:' .. ARGV[2], '-inf', '(' .. ARGV[3], 'LIMIT', 0, tonumber(ARGV[4]))
local n = 0
for _, id in ipairs(ids) do
  local r = load(id)
  if r == nil or r.st ~= ARGV[2] then
    redis.call('ZREM', P .. 'fin:' .. ARGV[2], id)
  else
    unindex(r)
    redis.call('DEL', rowKey(id), P .. 's:' .. id, P .. 'sn:' .. id)
    redis.call('ZREM', P .. 'all', id)
    n = n + 1
  end
end
return n
`;
