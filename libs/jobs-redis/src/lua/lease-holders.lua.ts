import { LUA_PRELUDE } from './prelude.lua';

/**
 * The live holders of a fleet lease key (see {@link LUA_LEASE_ACQUIRE} for the layout); expired slots are pruned.
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] lease key.
 *
 * Returns a flat list of holder, slot, expiresAt (epoch ms), in no particular order.
 */
export const LUA_LEASE_HOLDERS = `${LUA_PRELUDE}
local slots, exp = P .. 'ls:' .. ARGV[2], P .. 'lx:' .. ARGV[2]
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', exp, '-inf', fmt(NOW))) do
  redis.call('HDEL', slots, gone)
  redis.call('ZREM', exp, gone)
end
local out = {}
local live = redis.call('ZRANGE', exp, 0, -1, 'WITHSCORES')
for i = 1, #live, 2 do
  out[#out + 1] = live[i]
  out[#out + 1] = redis.call('HGET', slots, live[i])
  out[#out + 1] = live[i + 1]
end
return out
`;
