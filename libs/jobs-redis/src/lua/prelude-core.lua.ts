/**
 * The head of {@link LUA_PRELUDE}, and all a script takes that needs no more of it (the enqueue): the prefix `P`
 * (`KEYS[1]`), `NOW` (the clock override `ARGV[1]`, or the server's `TIME`), `fmt` (an integer as exact text), `OFFSET`,
 * the key builders `Q` and `rowKey`, and `announce` (SPUBLISH of a queue on P..'wake', once per script). The layout and
 * the wake are described on {@link LUA_PRELUDE}. Each helper is a closure the script builds on every call, so a script
 * that starts from this alone pays for none it does not call (the whole prelude: ~2 µs of Redis CPU a call more).
 */
export const LUA_PRELUDE_CORE = `
local P = KEYS[1]
local function clock()
  if ARGV[1] ~= '' then return tonumber(ARGV[1]) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local NOW = clock()
-- integers as exact decimal text: Lua's tostring keeps only 14 significant digits
local function fmt(n) return string.format('%d', n) end
local OFFSET = 62135596800000
local function Q(q) return P .. 'q:' .. #q .. ':' .. q end
local function rowKey(id) return P .. 'j:' .. id end
-- announces a queue that got a waiting row, once per script
local ANNOUNCED = {}
local function announce(q)
  if ANNOUNCED[q] then return end
  ANNOUNCED[q] = true
  redis.call('SPUBLISH', P .. 'wake', q)
end
`;
