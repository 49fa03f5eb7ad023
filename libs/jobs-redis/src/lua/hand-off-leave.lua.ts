import { LUA_PRELUDE_CORE } from './prelude-core.lua';

/**
 * A worker leaves the hand-off ({@link LUA_HAND_OFF}): its registrations go, so no enqueue chooses it from here on,
 * and what was already handed to it and not yet popped is taken off its list and answered, for the worker to hand
 * back. With `mark`, a stop marker (a lone NUL, which no handed entry is) is pushed last, so a blocking pop still
 * waiting on the list returns; the list lapses shortly after in case no pop is left to take it.
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] worker id. ARGV[3] mark ('1': push the stop marker). ARGV[4] n,
 * then n queue names.
 *
 * Returns the entries that were on the list, oldest first (each as `handOff` pushed it).
 */
export const LUA_HAND_OFF_LEAVE = `${LUA_PRELUDE_CORE}
local w = ARGV[2]
for i = 1, tonumber(ARGV[4]) do
  local q = ARGV[4 + i]
  redis.call('ZREM', Q(q) .. ':ho', w)
  redis.call('DEL', Q(q) .. ':ho:' .. w)
end
local list = P .. 'hl:' .. w
local left = redis.call('LRANGE', list, 0, -1)
redis.call('DEL', list)
if ARGV[3] == '1' then
  redis.call('RPUSH', list, '\\0')
  redis.call('PEXPIRE', list, 10000)
end
return left
`;
