import { LUA_CLAIM_PACK } from './claim-pack.lua';
import { LUA_PRELUDE } from './prelude.lua';

/** The most arguments after the key one batched index command carries (even: score/member pairs stay whole). */
const CHUNK = 1000;

/**
 * One claim pass over waiting rows (rescuing lapsed leases is {@link LUA_RESCUE}'s, a separate operation).
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] worker id. ARGV[3] visibility timeout ms. ARGV[4] a fresh
 * random token base: the claim token of the i-th row this call claims is base .. ':' .. i, unique per claim. ARGV[5]
 * e, then e excluded tenants (their rows are skipped; rows with no tenant never are). Then s, the slot count, and
 * per slot: queue, limit, ahead, k (-1 = every name) and k served names.
 *
 * Per slot, in order (a queue named by two slots is taken from twice; paused queues are skipped): first the queue's
 * delayed rows whose run time came move to their names' due sets, earliest first and at most 10,000 per call (a larger
 * burst follows on the next claims, so only within such a burst can a later-due row of a better priority wait); then, over the served names, the first
 * limit + ahead due rows in claim order (priority, run time, id — each name's due set is already in that order, and
 * the names are merged) are picked, of which the first `limit` are taken whatever their attempt and the rest only if
 * this claim does not put them on their final attempt. Each taken row becomes running: attempt + 1, this worker, a
 * fresh claim token, leased until now + the visibility timeout.
 *
 * Each taken row's own hash is written at once; the index moves of the slot's taken rows (out of their due and
 * oldest-age sets, into the queue's lease set) are sent once per key at the end of the slot, in chunks of
 * {@link CHUNK} arguments, and the state counts, summed per queue, name and state, once per field at the end (a row
 * read in a state other than waiting, which an index out of step could hand over, takes the general path row by row
 * instead). Key names are built once per queue and name, not per row.
 *
 * Returns { rows, meta }. rows: the claimed rows in the order taken (the i-th holds claim token base .. ':' .. i),
 * each ONE string packed by `packRow` ({@link LUA_CLAIM_PACK}: positional, from the one HGETALL that read the row, as
 * stored before this claim — the attempt not yet counted: the client adds the 1). Of the stored state, worker, claim
 * token, lease and update time the reply holds none: they are what this claim wrote. meta = { NOW, the lease expiry written (NOW + the visibility
 * timeout), then per queue that a slot with a limit above 0 asked of and that gave no row: the queue, and the earliest
 * time something there can become claimable without an announcement (its first delayed row's run time or first
 * running row's lease expiry, whichever is sooner; -1 for neither) }. An idle worker's driver skips its claims until
 * then, or until the queue is announced (see `redis-wake.ts`).
 */
export const LUA_CLAIM = `${LUA_PRELUDE}${LUA_CLAIM_PACK}
DEFERRED = {}
local worker = ARGV[2]
local vt = tonumber(ARGV[3])
local base = ARGV[4]
local excluded = {}
local ne = tonumber(ARGV[5])
for j = 1, ne do excluded[ARGV[5 + j]] = true end
local a = 6 + ne
local ns = tonumber(ARGV[a])
a = a + 1
local promoted = {}
local seq = 0
local claimed = {}
local asked, taken = {}, {}

local function promote(q)
  if promoted[q] then return end
  promoted[q] = true
  -- bounded, so a burst of rows falling due together never stalls the server in one script
  local due = redis.call('ZRANGEBYSCORE', Q(q) .. ':d', '-inf', NOW_TEXT, 'LIMIT', '0', '10000')
  for _, id in ipairs(due) do
    redis.call('ZREM', Q(q) .. ':d', id)
    local r = load(id)
    if r ~= nil and LIVE[r.st] and r.st ~= 'running' then
      redis.call('ZADD', Q(q) .. ':r:' .. r.name, r.pri, member(r))
    end
  end
end

-- the first 'want' due rows of one name's set in claim order, excluded tenants stepped over: each its member (runAt
-- .. id) alone, or — when 'scored' (rows of several names to merge: one name's set is in claim order already) — a
-- table of its priority, member and id for the merge
local function firstOf(q, name, want, into, scored)
  local key = Q(q) .. ':r:' .. name
  local page = math.max(want, 32)
  local offset, got = 0, 0
  local step = scored and 2 or 1
  while got < want do
    local items
    if scored then
      items = redis.call('ZRANGE', key, offset, offset + page - 1, 'WITHSCORES')
    else
      items = redis.call('ZRANGE', key, offset, offset + page - 1)
    end
    for i = 1, #items, step do
      if ne == 0 or not excluded[redis.call('HGET', rowKey(string.sub(items[i], 16)), 'ten') or ''] then
        into[#into + 1] = scored and { pri = tonumber(items[i + 1]), m = items[i], id = string.sub(items[i], 16) }
          or items[i]
        got = got + 1
        if got >= want then break end
      end
    end
    if #items < page * step then break end
    offset = offset + page
  end
end

local WAITING = { ready = true, delayed = true, suspended = true }
-- a stored attempt's successor as text, made once per attempt value in a call (most rows of a claim share one)
local AFTER = {}
local function attemptAfter(att)
  local t = AFTER[att]
  if t == nil then
    t = fmt(tonumber(att) + 1)
    AFTER[att] = t
  end
  return t
end
-- whether a row of stored attempt att and max attempts max may be taken ahead (this claim would not put it on its
-- final attempt), decided once per (att, max) text pair in a call: most rows of a claim share one, and each text read
-- as a number is a strtod
local AHEAD = {}
local function aheadAllowed(att, max)
  local byMax = AHEAD[att]
  if byMax == nil then
    byMax = {}
    AHEAD[att] = byMax
  end
  local allowed = byMax[max]
  if allowed == nil then
    allowed = tonumber(att) + 1 < tonumber(max)
    byMax[max] = allowed
  end
  return allowed
end
local le, ua = fmt(NOW + vt), NOW_TEXT
-- per queue, its key names built once and its taken rows' index moves pending: K.k = Q(q), K.l its lease set and
-- K.ll the score/member pairs to add there; per name (K.by[name]), its due and oldest-age sets' keys (r, w), the
-- members to take out of each (rl, wl) and the counts its taken rows moved, by the state they left
local KEYS_OF = {}
local function keysOf(q)
  local K = KEYS_OF[q]
  if K == nil then
    local k = Q(q)
    K = { k = k, l = k .. ':l', n = k .. ':n', ll = {}, by = {} }
    KEYS_OF[q] = K
  end
  return K
end
local function namedOf(K, name)
  local N = { r = K.k .. ':r:' .. name, w = K.k .. ':w:' .. name, rl = {}, wl = {}, moved = {} }
  K.by[name] = N
  return N
end
local function chunked(cmd, key, list)
  for i = 1, #list, ${CHUNK} do redis.call(cmd, key, unpack(list, i, math.min(i + ${CHUNK - 1}, #list))) end
end
-- sends the index moves pending (once per key, in chunks) and empties them
local function flushMoves()
  for _, K in pairs(KEYS_OF) do
    for _, N in pairs(K.by) do
      chunked('ZREM', N.r, N.rl)
      chunked('ZREM', N.w, N.wl)
      N.rl, N.wl = {}, {}
    end
    chunked('ZADD', K.l, K.ll)
    K.ll = {}
  end
end
-- the (name, state) counts of the waiting rows taken: per queue, name and state left, summed, then one bump per field
local function flushMoved()
  for _, K in pairs(KEYS_OF) do
    for name, N in pairs(K.by) do
      for st, n in pairs(N.moved) do
        bump(K.n, name .. '|' .. st, -n)
        bump(K.n, name .. '|running', n)
      end
    end
  end
end
-- makes the row packed as packed (q, name, st, att its fields) with key id (hash rk), found in its due set as member
-- m, running under claim token c
local function take(packed, id, rk, m, c, q, name, st, att)
  att = attemptAfter(att)
  if WAITING[st] then
    redis.call('HSET', rk, 'st', 'running', 'att', att, 'w', worker, 'c', c, 'le', le, 'ua', ua)
    local K = KEYS_OF[q] or keysOf(q)
    local N = K.by[name] or namedOf(K, name)
    local list = N.rl
    list[#list + 1] = m
    if st ~= 'suspended' then
      list = N.wl
      list[#list + 1] = id
    end
    list = K.ll
    list[#list + 1] = le
    list[#list + 1] = id
    N.moved[st] = (N.moved[st] or 0) + 1
  else
    move(load(id), { st = 'running', att = att, w = worker, c = c, le = le, ua = ua })
  end
  claimed[#claimed + 1] = packed
end

local function before(x, y)
  if x.pri ~= y.pri then return x.pri < y.pri end
  return strlt(x.m, y.m)
end

for s = 1, ns do
  local q, limit, ahead, k = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), tonumber(ARGV[a + 3])
  local names
  if k >= 0 then
    names = {}
    for j = 1, k do names[j] = ARGV[a + 3 + j] end
    a = a + 4 + k
  else
    a = a + 4
  end
  local want = limit + ahead
  if limit > 0 then asked[q] = true end
  if want > 0 and redis.call('SISMEMBER', P .. 'paused', q) == 0 then
    promote(q)
    if names == nil then names = redis.call('SMEMBERS', Q(q) .. ':names') end
    local picked = {}
    local sources = 0
    local scored = #names > 1
    for _, name in ipairs(names) do
      local had = #picked
      firstOf(q, name, want, picked, scored)
      if #picked > had then sources = sources + 1 end
    end
    -- one name's due set is already in claim order: the merge sort is for rows of several names
    if sources > 1 then table.sort(picked, before) end
    for i = 1, math.min(want, #picked) do
      local m, id = picked[i], nil
      if scored then m, id = m.m, m.id else id = string.sub(m, 16) end
      local rk = rowKey(id)
      local v = redis.call('HGETALL', rk)
      if #v > 0 then
        -- packed in the walk that picks out the fields the claim decides on
        local packed, st, name, rq, att, max = packRow(v, id)
        if i <= limit or aheadAllowed(att, max) then
          seq = seq + 1
          take(packed, id, rk, m, base .. ':' .. fmt(seq), rq, name, st, att)
          taken[q] = true
        end
      end
    end
    flushMoves()
  end
end
local function first(key)
  local top = redis.call('ZRANGE', key, '0', '0', 'WITHSCORES')
  if #top == 0 then return nil end
  return tonumber(top[2])
end
local meta = { ua, le }
for q in pairs(asked) do
  if not taken[q] then
    local d, l = first(Q(q) .. ':d'), first(Q(q) .. ':l')
    local due = d or l or -1
    if d and l then due = math.min(d, l) end
    meta[#meta + 1] = q
    meta[#meta + 1] = fmt(due)
  end
end
flushMoved()
flushCounts()
return { claimed, meta }
`;
