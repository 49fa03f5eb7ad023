import { LUA_PRELUDE } from './prelude.lua';

/**
 * The live worker rows (see {@link LUA_WORKER_BEAT} for the layout); rows past their expiry are deleted.
 *
 * KEYS[1] the prefix. ARGV[1] clock override.
 *
 * Returns a flat list of beat JSON, heartbeatAt, expiresAt per live worker, in no particular order.
 */
export const LUA_WORKERS = `${LUA_PRELUDE}
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', P .. 'wkx', '-inf', fmt(NOW))) do
  redis.call('HDEL', P .. 'wk', gone)
  redis.call('HDEL', P .. 'wkat', gone)
  redis.call('ZREM', P .. 'wkx', gone)
end
local out = {}
local live = redis.call('ZRANGE', P .. 'wkx', 0, -1, 'WITHSCORES')
for i = 1, #live, 2 do
  out[#out + 1] = redis.call('HGET', P .. 'wk', live[i])
  out[#out + 1] = redis.call('HGET', P .. 'wkat', live[i])
  out[#out + 1] = live[i + 1]
end
return out
`;
