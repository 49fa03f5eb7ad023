/**
 * Ledger rows, newest pass first. The ledger holds one row per pass — a handful per backfill — so the walk over
 * P..'bf:start' filters by name and status here rather than keeping an index per name.
 *
 * KEYS[1] the prefix. ARGV[1] name ('' = any, else '=' and the name), ARGV[2] status
 * ('' = any, else '=' and the status), ARGV[3] at most this many rows.
 *
 * Returns a list of rows, each HGETALL's flat field / value list.
 */
export const LUA_BACKFILL_LIST = `
local P = KEYS[1]
local limit = tonumber(ARGV[3])
local wantName, wantStatus = string.sub(ARGV[1], 2), string.sub(ARGV[2], 2)
local out = {}
for _, id in ipairs(redis.call('ZREVRANGE', P .. 'bf:start', 0, -1)) do
  if #out >= limit then break end
  local key = P .. 'bf:r:' .. id
  local name, status = unpack(redis.call('HMGET', key, 'name', 'status'))
  if (ARGV[1] == '' or name == wantName) and (ARGV[2] == '' or status == wantStatus) then
    out[#out + 1] = redis.call('HGETALL', key)
  end
end
return out
`;
