import { LUA_PRELUDE } from './prelude.lua';

/**
 * Deletes every expired event (expiry at or before now; see {@link LUA_EVENT_PUBLISH} for the layout), or with
 * ARGV[2] = 'all' every event (the test seam behind `reset()`).
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] 'expired' or 'all'.
 *
 * Returns how many events were deleted.
 */
export const LUA_EVENT_PURGE = `${LUA_PRELUDE}
local gone
if ARGV[2] == 'all' then
  gone = redis.call('ZRANGE', P .. 'evx', 0, -1)
else
  gone = redis.call('ZRANGEBYSCORE', P .. 'evx', '-inf', fmt(NOW))
end
for _, seq in ipairs(gone) do
  local name = redis.call('HGET', P .. 'ev:' .. seq, 'name')
  if name then redis.call('ZREM', P .. 'evn:' .. name, seq) end
  redis.call('DEL', P .. 'ev:' .. seq)
  redis.call('ZREM', P .. 'evx', seq)
end
return #gone
`;
