/**
 * What a due set's member adds to a run time (ms) before writing it as 15 digits: the ms from year 1 to 1970, so no
 * run time a row may hold writes a sign or a shorter number. `OFFSET` in Lua.
 */
export const MEMBER_OFFSET = '62135596800000';

/**
 * The clock of every script, and all a script's first lines need of the prelude: the prefix `P` (`KEYS[1]`), `NOW`
 * (the clock override `ARGV[1]`, or the server's `TIME`) and `NOW_TEXT` (the same instant as exact text). Builds no
 * closure, so a script may run a straight path right after it ({@link LUA_ENQUEUE}'s batch of one) and define the
 * helpers ({@link LUA_PRELUDE_HELPERS}) only on the paths that call them.
 */
export const LUA_PRELUDE_CLOCK = `
local P = KEYS[1]
-- now in epoch ms, and as text: TIME's seconds and its microseconds' first three digits (zero-padded) side by side,
-- read as a number once — no number formatted, where seconds * 1000 + floor(µs / 1000) took two and gave a third
local NOW, NOW_TEXT
if ARGV[1] ~= '' then
  NOW = tonumber(ARGV[1])
  NOW_TEXT = string.format('%d', NOW)
else
  local t = redis.call('TIME')
  NOW_TEXT = t[1] .. string.sub('00000' .. t[2], -6, -4)
  NOW = tonumber(NOW_TEXT)
end
`;

/**
 * The helpers of {@link LUA_PRELUDE_CORE}, after {@link LUA_PRELUDE_CLOCK}: `fmt` (an integer as exact text),
 * `OFFSET`, the key builders `Q` and `rowKey`, and `announce`. Each is a closure built every time the text runs
 * (~700 server instructions each), so a path that needs none of them runs before it.
 */
export const LUA_PRELUDE_HELPERS = `
-- integers as exact decimal text: Lua's tostring keeps only 14 significant digits
local function fmt(n) return string.format('%d', n) end
local OFFSET = ${MEMBER_OFFSET}
-- a queue's key prefix; the last one built is kept (a script mostly names one queue, and a length turned into text
-- is a sprintf)
local lastQ, lastQKey
local function Q(q)
  if q ~= lastQ then lastQ, lastQKey = q, P .. 'q:' .. #q .. ':' .. q end
  return lastQKey
end
local function rowKey(id) return P .. 'j:' .. id end
-- announces a queue that got a waiting row, once per script
local ANNOUNCED = {}
local function announce(q)
  if ANNOUNCED[q] then return end
  ANNOUNCED[q] = true
  redis.call('SPUBLISH', P .. 'wake', q)
end
`;

/**
 * The head of {@link LUA_PRELUDE}, and all a script takes that needs no more of it: {@link LUA_PRELUDE_CLOCK} (the
 * prefix `P`, `NOW`, `NOW_TEXT`) then {@link LUA_PRELUDE_HELPERS} (`fmt`, `OFFSET`, `Q`, `rowKey`, `announce`: SPUBLISH
 * of a queue on P..'wake', once per script). The layout and the wake are described on {@link LUA_PRELUDE}. Each helper
 * is a closure the script builds on every call, so a script that starts from this alone pays for none it does not
 * call (the whole prelude: ~2 µs of Redis CPU a call more).
 */
export const LUA_PRELUDE_CORE = `${LUA_PRELUDE_CLOCK}${LUA_PRELUDE_HELPERS}`;
