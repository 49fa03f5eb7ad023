import { LUA_PRELUDE_CORE } from './prelude-core.lua';

/**
 * A worker registers for the hand-off ({@link LUA_HAND_OFF}) right before each blocking pop of its list: per queue it
 * offers, the registration `<free>|<vt>|<names>` (PX ttl) and its member in Q(q)..':ho'; per queue it no longer offers,
 * both removed. The free slots it sends count the rows it has popped and placed, not those handed since its last pop
 * and still on its list: those are taken off here (every entry off every queue's count — a row's queue is not read),
 * in the same script as the write, so no hand-off lands between the count and the write and the worker is never
 * offered more than it can start. A queue whose count falls to 0 is not registered.
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] worker id. ARGV[3] ttl (ms). ARGV[4] the worker's lease length
 * (ms). ARGV[5] n, then n triples: queue, free slots, names text (`*` or NUL-led, -separated and -ended). Then m, then
 * m queues to deregister.
 *
 * Returns the number of entries on the worker's list (the pop that follows answers them first).
 */
export const LUA_HAND_OFF_REGISTER = `${LUA_PRELUDE_CORE}
local w = ARGV[2]
local waiting = redis.call('LLEN', P .. 'hl:' .. w)
local n = tonumber(ARGV[5])
local a = 6
for i = 1, n do
  local k = Q(ARGV[a])
  local free = tonumber(ARGV[a + 1]) - waiting
  if free > 0 then
    redis.call('SET', k .. ':ho:' .. w, free .. '|' .. ARGV[4] .. '|' .. ARGV[a + 2], 'PX', ARGV[3])
    redis.call('ZADD', k .. ':ho', '0', w)
  else
    redis.call('DEL', k .. ':ho:' .. w)
    redis.call('ZREM', k .. ':ho', w)
  end
  a = a + 3
end
for i = 1, tonumber(ARGV[a]) do
  local k = Q(ARGV[a + i])
  redis.call('DEL', k .. ':ho:' .. w)
  redis.call('ZREM', k .. ':ho', w)
end
return waiting
`;
