import { LUA_PRELUDE_CORE } from './prelude-core.lua';

/**
 * The helpers every script starts with: the clock, number formatting, the key layout and the row indexes. Not a
 * script of its own — each `<op>.lua.ts` is this text followed by its body, so one EVALSHA carries everything it needs.
 * It opens with {@link LUA_PRELUDE_CORE} (the prefix, the clock, `fmt`, `Q`, `rowKey`, `announce`), which a script
 * needing nothing more (the enqueue) takes alone: every helper defined here is a closure built on every call.
 *
 * Every script takes `KEYS[1]` = the deployment's key prefix (`{tag}:`), declared so a Cluster client routes the call
 * to the slot of the tag; every key a script touches is that prefix plus a suffix, so all of them hash to that one slot.
 * `ARGV[1]` is always the clock override: '' (production) reads the server's `TIME`, an epoch-ms number (tests with a
 * frozen clock) is used as is.
 *
 * Layout (P = the prefix; Q(q) = P .. 'q:' .. #q .. ':' .. q, length-prefixed so no queue name can collide with another
 * queue's key):
 *   P..'j:'..id            HASH  one row: id run name q input key ten by st att max pri at ca ua w c le err pg ck tp fin xr
 *                               (an absent field is null; input and pg are JSON text written by the client, never
 *                               decoded here, so a value round-trips byte for byte; w c le are the claim's, read only
 *                               while st is running: the ack leaves them behind, every other move out clears them)
 *   P..'live'              HASH  live key → id of the live row holding it
 *   P..'all'               ZSET  every row id, score 0: lexicographic order is id order (UUIDv7: creation order)
 *   P..'queues'            SET   queues that ever held a row
 *   P..'paused'            SET   paused queues
 *   Q(q)..':names'         SET   job names that ever had a waiting row in q
 *   Q(q)..':r:'..name      ZSET  due waiting rows of (q, name): score priority, member runAt (15 digits) .. id
 *   Q(q)..':d'             ZSET  waiting rows of q not yet due (at promotion time): score runAt, member id
 *   Q(q)..':l'             ZSET  running rows of q: score leaseExpiresAt, member id
 *   Q(q)..':w:'..name      ZSET  ready / delayed (not suspended) rows of (q, name): score runAt (oldest due age)
 *   Q(q)..':n'             HASH  name..'|'..state → count for live states, state → count for finished states (a
 *                               queue's count of a live state is the sum over its names: one HINCRBY a move, not
 *                               two; a plain live-state field, kept by drivers before that, is stale and never read)
 *   P..'fin:'..state       ZSET  finished rows of one finished state: score finishedAt (the retention sweep's index)
 *
 * Wake: a script that puts a waiting (not suspended) row into a queue's indexes announces the queue once on the
 * sharded channel P..'wake' (SPUBLISH, the queue's name as the message; the channel shares the keys' hash tag, so it
 * is Cluster-legal and served by the shard that ran the script). Workers subscribed there claim at once; an idle
 * worker's driver skips its polls while nothing was announced (see `redis-wake.ts`).
 */
export const LUA_PRELUDE = `${LUA_PRELUDE_CORE}
local LIVE = { ready = true, delayed = true, running = true, suspended = true }
local function liveKey(r)
  local t = r.ten or ''
  return #r.name .. ':' .. r.name .. #t .. ':' .. t .. r.key
end
local function member(r) return string.format('%015d', tonumber(r.at) + OFFSET) .. r.id end
local function load(id)
  local flat = redis.call('HGETALL', rowKey(id))
  if #flat == 0 then return nil end
  local r = {}
  for i = 1, #flat, 2 do r[flat[i]] = flat[i + 1] end
  return r
end
-- byte-wise string order (Lua's < on strings follows the server's collation locale)
local function strlt(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end
-- hash increments: written at once, or — in a script that set DEFERRED = {} (the batch hot paths: claim, ack) —
-- summed per key and field and written by flushCounts() before it returns, one HINCRBY per distinct field
local DEFERRED = nil
local function bump(key, field, by)
  if DEFERRED == nil then
    redis.call('HINCRBY', key, field, by)
    return
  end
  local fields = DEFERRED[key]
  if fields == nil then
    fields = {}
    DEFERRED[key] = fields
  end
  fields[field] = (fields[field] or 0) + by
end
local function flushCounts()
  if DEFERRED == nil then return end
  for key, fields in pairs(DEFERRED) do
    for field, by in pairs(fields) do
      if by ~= 0 then redis.call('HINCRBY', key, field, by) end
    end
  end
  DEFERRED = {}
end
-- a live row counts under name|state only (a queue's live total is their sum, see the layout), a finished one under
-- its state
local function count(r, by)
  local k = Q(r.q) .. ':n'
  if LIVE[r.st] then bump(k, r.name .. '|' .. r.st, by) else bump(k, r.st, by) end
end
-- takes a row out of every index its state put it in ('keepLive': it stays live, so its live key stays too)
local function unindex(r, keepLive)
  local q = Q(r.q)
  if LIVE[r.st] and not keepLive and redis.call('HGET', P .. 'live', liveKey(r)) == r.id then
    redis.call('HDEL', P .. 'live', liveKey(r))
  end
  if r.st == 'running' then
    redis.call('ZREM', q .. ':l', r.id)
  elseif LIVE[r.st] then
    -- a waiting row is in its due set or the delayed set (promotion moves it without a state change): try both
    redis.call('ZREM', q .. ':r:' .. r.name, member(r))
    redis.call('ZREM', q .. ':d', r.id)
    if r.st ~= 'suspended' then redis.call('ZREM', q .. ':w:' .. r.name, r.id) end
  else
    redis.call('ZREM', P .. 'fin:' .. r.st, r.id)
  end
  count(r, -1)
end
-- puts a row into the indexes its state calls for, reading due-ness against NOW
local function index(r, keepLive)
  local q = Q(r.q)
  if LIVE[r.st] and not keepLive then redis.call('HSET', P .. 'live', liveKey(r), r.id) end
  if LIVE[r.st] and r.st ~= 'running' and r.st ~= 'suspended' then announce(r.q) end
  if r.st == 'running' then
    redis.call('ZADD', q .. ':l', r.le, r.id)
  elseif LIVE[r.st] then
    redis.call('SADD', q .. ':names', r.name)
    if tonumber(r.at) <= NOW then
      redis.call('ZADD', q .. ':r:' .. r.name, r.pri, member(r))
    else
      redis.call('ZADD', q .. ':d', r.at, r.id)
    end
    if r.st ~= 'suspended' then redis.call('ZADD', q .. ':w:' .. r.name, r.at, r.id) end
  elseif r.fin then
    redis.call('ZADD', P .. 'fin:' .. r.st, r.fin, r.id)
  end
  count(r, 1)
end
-- writes the fields of 'set' (false = delete the field) onto r and its hash, re-indexing around the change
local function move(r, set)
  local keepLive = LIVE[r.st] and LIVE[set.st or r.st]
  unindex(r, keepLive)
  local hset, hdel = {}, {}
  for f, v in pairs(set) do
    if v == false then
      r[f] = nil
      hdel[#hdel + 1] = f
    else
      r[f] = v
      hset[#hset + 1] = f
      hset[#hset + 1] = v
    end
  end
  if #hset > 0 then redis.call('HSET', rowKey(r.id), unpack(hset)) end
  if #hdel > 0 then redis.call('HDEL', rowKey(r.id), unpack(hdel)) end
  index(r, keepLive)
end
local function holds(r, worker, claim)
  return r ~= nil and r.st == 'running' and r.c == claim and r.w == worker
end
local function flat(r)
  local out = {}
  for f, v in pairs(r) do
    out[#out + 1] = f
    out[#out + 1] = v
  end
  return out
end
-- the settle counters: one HINCRBY per field into the job's current 1-minute bucket
local function countInto(name, field, by)
  if by == 0 then return end
  local start = math.floor(NOW / 60000) * 60000
  bump(P .. 'ctr', name .. '|60000|' .. fmt(start) .. '|' .. field, by)
end
`;
