import { LUA_PRELUDE } from './prelude.lua';

/**
 * Folds every counter bucket past its tier into the tier whose window holds it (straight there, so a fold never
 * lands in a bucket due to fold itself); the last tier is never folded (the retention sweep drops it).
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] tier count t, then t pairs of bucketMs, keepMs, finest first.
 * Counters live in P..'ctr' (HASH job|bucketMs|bucketStart|field → n).
 *
 * Returns how many buckets were folded. One script, so two rollups at once never count a bucket twice.
 */
export const LUA_COUNTERS_ROLLUP = `${LUA_PRELUDE}
local t = tonumber(ARGV[2])
local tiers = {}
for i = 1, t do
  tiers[i] = { ms = tonumber(ARGV[1 + 2 * i]), keep = tonumber(ARGV[2 + 2 * i]) }
end
local function target(ms, start)
  local tier = nil
  for i = 1, t do if tiers[i].ms == ms then tier = i end end
  if tier == nil or tier == t or start >= NOW - tiers[tier].keep then return nil end
  for i = tier + 1, t do
    local s = math.floor(start / tiers[i].ms) * tiers[i].ms
    if i == t or s >= NOW - tiers[i].keep then return tiers[i].ms, s end
  end
  return nil
end
local kv = redis.call('HGETALL', P .. 'ctr')
local folded = {}
local n = 0
for i = 1, #kv, 2 do
  local job, ms, start, field = string.match(kv[i], '^(.*)|(%-?%d+)|(%-?%d+)|(%a+)$')
  local toMs, toStart = target(tonumber(ms), tonumber(start))
  if toMs then
    local bucket = job .. '|' .. ms .. '|' .. start
    if not folded[bucket] then
      folded[bucket] = true
      n = n + 1
    end
    redis.call('HDEL', P .. 'ctr', kv[i])
    redis.call('HINCRBY', P .. 'ctr', job .. '|' .. fmt(toMs) .. '|' .. fmt(toStart) .. '|' .. field, kv[i + 1])
  end
end
return n
`;
