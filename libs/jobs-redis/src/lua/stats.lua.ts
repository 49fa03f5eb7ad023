import { LUA_PRELUDE } from './prelude.lua';

/**
 * Counts per queue, read from the counts every transition keeps (never a walk of the rows).
 *
 * KEYS[1] the prefix. ARGV[1] clock override.
 *
 * Returns one entry per queue holding rows: { queue, counts, ages } where counts is the flat HGETALL of the queue's
 * count hash (state → n, and name|state → n for live states) and ages is a flat list of name, age in ms of that
 * name's oldest due ready / delayed row (0 when none is due).
 */
export const LUA_STATS = `${LUA_PRELUDE}
local out = {}
for _, q in ipairs(redis.call('SMEMBERS', P .. 'queues')) do
  local counts = redis.call('HGETALL', Q(q) .. ':n')
  local held = false
  for i = 2, #counts, 2 do
    if tonumber(counts[i]) ~= 0 then held = true end
  end
  if held then
    local ages = {}
    for _, name in ipairs(redis.call('SMEMBERS', Q(q) .. ':names')) do
      local first = redis.call('ZRANGE', Q(q) .. ':w:' .. name, 0, 0, 'WITHSCORES')
      local age = 0
      if #first == 2 and tonumber(first[2]) <= NOW then age = NOW - tonumber(first[2]) end
      ages[#ages + 1] = name
      ages[#ages + 1] = fmt(age)
    end
    out[#out + 1] = { q, counts, ages }
  end
end
return out
`;
