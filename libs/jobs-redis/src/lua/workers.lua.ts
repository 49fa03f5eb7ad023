import { LUA_PRELUDE } from './prelude.lua';

/**
 * The live worker rows (see {@link LUA_WORKER_BEAT} for the layout); rows past their expiry are deleted.
 *
 * KEYS[1] the prefix. ARGV[1] clock override.
 *
 * Returns a flat list of beat JSON, heartbeatAt, expiresAt per live worker, in no particular order.
 */
export const LUA_WORKERS = `${LUA_PRELUDE}
local out = {}
local rows = redis.call('HGETALL', P .. 'wk')
for i = 1, #rows, 2 do
  local at, exp, json = string.match(rows[i + 1], '^(%d+)|(%d+)|(.*)$')
  if exp == nil or tonumber(exp) <= NOW then
    redis.call('HDEL', P .. 'wk', rows[i])
  else
    out[#out + 1] = json
    out[#out + 1] = at
    out[#out + 1] = exp
  end
end
return out
`;
