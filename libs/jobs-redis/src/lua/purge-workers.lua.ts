import { LUA_PRELUDE } from './prelude.lua';

/**
 * Deletes the worker rows past their expiry (the retention sweep's worker step): the rows of workers that died without
 * a clean stop, which nothing else removes unless someone lists the workers. Compared on the script's clock, the one
 * that stamped each row's expiry (see {@link LUA_WORKER_BEAT} for the layout).
 *
 * KEYS[1] the prefix. ARGV[1] clock override.
 *
 * Returns how many rows were deleted.
 */
export const LUA_PURGE_WORKERS = `${LUA_PRELUDE}
local rows = redis.call('HGETALL', P .. 'wk')
local n = 0
for i = 1, #rows, 2 do
  local exp = string.match(rows[i + 1], '^%d+|(%d+)|')
  if exp == nil or tonumber(exp) <= NOW then
    redis.call('HDEL', P .. 'wk', rows[i])
    n = n + 1
  end
end
return n
`;
