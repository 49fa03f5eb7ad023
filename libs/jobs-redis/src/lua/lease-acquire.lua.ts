import { LUA_PRELUDE } from './prelude.lua';

/**
 * Takes the lowest free slot of a fleet lease key for a holder, or renews the slot it already holds.
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] lease key, ARGV[3] holder, ARGV[4] slot limit, ARGV[5] TTL in
 * ms. A key's slots live in P..'ls:'..key (HASH holder → slot) and P..'lx:'..key (ZSET holder by expiry); a slot
 * whose expiry has come is free, pruned here before anything is decided.
 *
 * Returns 1 when the holder holds a slot now, 0 when every slot is taken.
 */
export const LUA_LEASE_ACQUIRE = `${LUA_PRELUDE}
local slots, exp = P .. 'ls:' .. ARGV[2], P .. 'lx:' .. ARGV[2]
local holder, limit, ttl = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', exp, '-inf', fmt(NOW))) do
  redis.call('HDEL', slots, gone)
  redis.call('ZREM', exp, gone)
end
if redis.call('HEXISTS', slots, holder) == 0 then
  local taken = {}
  for _, s in ipairs(redis.call('HVALS', slots)) do taken[tonumber(s)] = true end
  local free = nil
  for s = 0, limit - 1 do
    if not taken[s] then free = s break end
  end
  if free == nil then return 0 end
  redis.call('HSET', slots, holder, fmt(free))
end
redis.call('ZADD', exp, fmt(NOW + ttl), holder)
return 1
`;
