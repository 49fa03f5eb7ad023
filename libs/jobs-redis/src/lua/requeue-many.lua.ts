import { LUA_BULK_COLLECT } from './bulk-collect.lua';
import { LUA_PRELUDE } from './prelude.lua';

/**
 * Re-queues up to ARGV[6] finished rows of one state (and queue, name, tenant), oldest first, each as
 * {@link LUA_REQUEUE} moves one (ready now, attempt 0, error, progress and finish cleared; steps kept).
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] state (finished: the caller refuses a live one), ARGV[3]
 * queue, ARGV[4] name, ARGV[5] tenant ('\0' = any), ARGV[6] the most rows to move (`MAX_BULK_ROWS`).
 *
 * Only rows that can move are candidates: a row whose key a live row holds (P..'live') stays, and of several
 * sharing one key only the oldest is one. So the bound is spent on movable rows only and `remaining` reaches 0.
 *
 * Returns { affected, remaining }.
 */
export const LUA_REQUEUE_MANY = `${LUA_PRELUDE}${LUA_BULK_COLLECT}
-- per live key the oldest candidate (ids are compared only when two rows share a key)
local oldest, movable = {}, {}
for _, id in ipairs(collect(false)) do
  local v = redis.call('HMGET', rowKey(id), 'name', 'ten', 'key')
  local key = liveKey({ name = v[1], ten = v[2] or false, key = v[3] })
  local held = oldest[key]
  if held == nil then
    if not redis.call('HGET', P .. 'live', key) then
      oldest[key] = id
      movable[#movable + 1] = key
    else
      oldest[key] = false
    end
  elseif held and strlt(id, held) then
    oldest[key] = id
  end
end
local ids = {}
for _, key in ipairs(movable) do ids[#ids + 1] = oldest[key] end
local moved = 0
for _, id in ipairs(firstById(ids, tonumber(ARGV[6]))) do
  move(load(id), { st = 'ready', at = fmt(NOW), att = '0', err = false, pg = false, fin = false, w = false,
    c = false, le = false, ua = fmt(NOW) })
  moved = moved + 1
end
return { moved, #ids - moved }
`;
