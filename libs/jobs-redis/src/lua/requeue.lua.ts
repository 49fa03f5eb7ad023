import { LUA_PRELUDE } from './prelude.lua';

/**
 * Re-queues one finished job: ready now, attempt 0, its error, progress and finish time cleared; with a step name,
 * that step and every step completed after it are dropped (a name no stored step carries drops nothing).
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] job id. ARGV[3] the step to requeue from ('\0' = keep every
 * step).
 *
 * Returns { 'ok', row } (row a flat HGETALL-style array), { 'not-found' }, { 'live', state } when the job is not
 * finished, or { 'held', holder id, holder state } when a live row holds its idempotency key (nothing moves).
 */
export const LUA_REQUEUE = `${LUA_PRELUDE}
local r = load(ARGV[2])
if r == nil then return { 'not-found' } end
if LIVE[r.st] then return { 'live', r.st } end
local holder = redis.call('HGET', P .. 'live', liveKey(r))
if holder then return { 'held', holder, redis.call('HGET', rowKey(holder), 'st') or '' } end
move(r, { st = 'ready', at = fmt(NOW), att = '0', err = false, pg = false, fin = false, w = false, c = false,
  le = false, ua = fmt(NOW) })
if ARGV[3] ~= '\\0' then
  local names = P .. 'sn:' .. r.id
  local at = redis.call('HGET', names, ARGV[3])
  if at then
    local cut = tonumber(at)
    local kv = redis.call('HGETALL', names)
    for i = 1, #kv, 2 do
      if tonumber(kv[i + 1]) >= cut then redis.call('HDEL', names, kv[i]) end
    end
    if cut == 0 then redis.call('DEL', P .. 's:' .. r.id) else redis.call('LTRIM', P .. 's:' .. r.id, 0, cut - 1) end
  end
end
return { 'ok', flat(r) }
`;
