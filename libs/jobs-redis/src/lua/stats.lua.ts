import { LUA_PRELUDE } from './prelude.lua';

/**
 * Counts per queue, read from the counts every transition keeps (never a walk of the rows).
 *
 * KEYS[1] the prefix. ARGV[1] clock override.
 *
 * Returns one entry per queue holding rows: { queue, counts, ages } where counts is the flat list of the queue's
 * count hash (name|state → n for live states, state → n for finished ones: the client sums a live state over its
 * names) without its plain live-state fields — stale counts a driver before the name|state-only scheme kept, never
 * read — and ages is a flat list of name, age in ms of that
 * name's oldest due ready / delayed row (0 when none is due).
 */
export const LUA_STATS = `${LUA_PRELUDE}
local out = {}
for _, q in ipairs(redis.call('SMEMBERS', P .. 'queues')) do
  local flat = redis.call('HGETALL', Q(q) .. ':n')
  local counts = {}
  local held = false
  for i = 1, #flat, 2 do
    if not LIVE[flat[i]] then
      counts[#counts + 1] = flat[i]
      counts[#counts + 1] = flat[i + 1]
      if tonumber(flat[i + 1]) ~= 0 then held = true end
    end
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
