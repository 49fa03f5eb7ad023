import { LUA_PRELUDE } from './prelude.lua';

/**
 * The fields of a claimed row, in the order {@link LUA_CLAIM} answers them (each row a fixed-position array, an absent
 * field a null): every field a row hash can hold (see the prelude's layout).
 */
export const CLAIM_ROW_FIELDS = [
  'id',
  'run',
  'name',
  'q',
  'input',
  'key',
  'ten',
  'by',
  'st',
  'att',
  'max',
  'pri',
  'at',
  'ca',
  'ua',
  'w',
  'c',
  'le',
  'err',
  'pg',
  'ck',
  'tp',
  'fin',
  'xr',
] as const;

/** The 1-based Lua position of a field in {@link CLAIM_ROW_FIELDS}. */
const at = (field: (typeof CLAIM_ROW_FIELDS)[number]): number =>
  CLAIM_ROW_FIELDS.indexOf(field) + 1;

/** The 0-based position of each of {@link CLAIM_ROW_FIELDS}. */
const POSITIONS: ReadonlyMap<string, number> = new Map(CLAIM_ROW_FIELDS.map((f, i) => [f, i]));

/**
 * A claimed row as {@link LUA_CLAIM} packs it — `presence`, then each of the {@link CLAIM_ROW_FIELDS} values, all
 * NUL-separated, `presence` holding '1' or '0' per field (absent: the value is '' and stands for none) — as a
 * reader of its fields; undefined for text not so shaped.
 */
export function packedClaimRow(text: string): ((field: string) => string | undefined) | undefined {
  const parts = text.split('\u0000');
  const presence = parts[0]!;
  if (parts.length !== CLAIM_ROW_FIELDS.length + 1 || presence.length !== CLAIM_ROW_FIELDS.length)
    return undefined;
  return (field) => {
    const i = POSITIONS.get(field);
    return i === undefined || presence[i] !== '1' ? undefined : parts[i + 1];
  };
}

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
 * {@link CHUNK} arguments, and the state counts once per field at the end (a row read in a state other than
 * waiting, which an index out of step could hand over, takes the general path row by row instead).
 *
 * Returns { rows, idle }: rows the claimed rows, each one string packed as {@link packedClaimRow} reads it (one
 * bulk reply per row: the client decodes one string rather than 24), or — for a row holding a NUL in some value,
 * written around the driver — the array of its {@link CLAIM_ROW_FIELDS} values in that order (null for an absent
 * field); idle = { NOW, then per
 * queue that a slot with a limit above 0 asked of and that gave no row: the queue, and the earliest time something
 * there can become claimable without an announcement (its first delayed row's run time or first running row's lease
 * expiry, whichever is sooner; -1 for neither) }. An idle worker's driver skips its claims until then, or until the
 * queue is announced (see `redis-wake.ts`).
 */
export const LUA_CLAIM = `${LUA_PRELUDE}
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
  local due = redis.call('ZRANGEBYSCORE', Q(q) .. ':d', '-inf', fmt(NOW), 'LIMIT', 0, 10000)
  for _, id in ipairs(due) do
    redis.call('ZREM', Q(q) .. ':d', id)
    local r = load(id)
    if r ~= nil and LIVE[r.st] and r.st ~= 'running' then
      redis.call('ZADD', Q(q) .. ':r:' .. r.name, r.pri, member(r))
    end
  end
end

-- the first 'want' due rows of one name's set in claim order, excluded tenants stepped over
local function firstOf(q, name, want, into)
  local key = Q(q) .. ':r:' .. name
  local page = math.max(want, 32)
  local offset, got = 0, 0
  while got < want do
    local items = redis.call('ZRANGE', key, offset, offset + page - 1, 'WITHSCORES')
    for i = 1, #items, 2 do
      local id = string.sub(items[i], 16)
      if ne == 0 or not excluded[redis.call('HGET', rowKey(id), 'ten') or ''] then
        into[#into + 1] = { pri = tonumber(items[i + 1]), m = items[i], id = id }
        got = got + 1
        if got >= want then break end
      end
    end
    if #items < page * 2 then break end
    offset = offset + page
  end
end

local FIELDS = { '${CLAIM_ROW_FIELDS.join("', '")}' }
local WAITING = { ready = true, delayed = true, suspended = true }
-- a row as one string: which fields are present ('1'/'0' each), then every value, NUL-separated; the values array
-- itself when a value holds a NUL (its separators would not be the only ones)
local function pack(v)
  local parts, present = {}, {}
  for i = 1, #FIELDS do
    local x = v[i]
    present[i] = x and '1' or '0'
    parts[i + 1] = x or ''
  end
  -- one plain search over the values run together (a pattern's gsub would cost more than the packing saves)
  if string.find(table.concat(parts, '', 2, #FIELDS + 1), '\\0', 1, true) then return v end
  parts[1] = table.concat(present)
  return table.concat(parts, '\\0')
end
local le, ua = fmt(NOW + vt), fmt(NOW)
-- index moves of the slot's taken rows, by key: ZREM members, and the lease set's ZADD score/member pairs
local zrem, zadd = {}, {}
local function pend(into, key, a, b)
  local list = into[key]
  if list == nil then
    list = {}
    into[key] = list
  end
  list[#list + 1] = a
  if b ~= nil then list[#list + 1] = b end
end
local function chunked(cmd, key, list)
  for i = 1, #list, ${CHUNK} do redis.call(cmd, key, unpack(list, i, math.min(i + ${CHUNK - 1}, #list))) end
end
local function flushMoves()
  for key, list in pairs(zrem) do chunked('ZREM', key, list) end
  for key, list in pairs(zadd) do chunked('ZADD', key, list) end
  zrem, zadd = {}, {}
end
-- makes the row of values v (FIELDS order), found in its due set as member m, running under claim token c
local function take(v, m, c)
  local id, q, name, st = v[1], v[${at('q')}], v[${at('name')}], v[${at('st')}]
  local att = fmt(tonumber(v[${at('att')}]) + 1)
  if WAITING[st] then
    redis.call('HSET', rowKey(id), 'st', 'running', 'att', att, 'w', worker, 'c', c, 'le', le, 'ua', ua)
    local k = Q(q)
    pend(zrem, k .. ':r:' .. name, m)
    if st ~= 'suspended' then pend(zrem, k .. ':w:' .. name, id) end
    pend(zadd, k .. ':l', le, id)
    bump(k .. ':n', st, -1)
    bump(k .. ':n', name .. '|' .. st, -1)
    bump(k .. ':n', 'running', 1)
    bump(k .. ':n', name .. '|running', 1)
  else
    move(load(id), { st = 'running', att = att, w = worker, c = c, le = le, ua = ua })
  end
  v[${at('st')}], v[${at('att')}], v[${at('w')}], v[${at('c')}], v[${at('le')}], v[${at('ua')}] =
    'running', att, worker, c, le, ua
  claimed[#claimed + 1] = pack(v)
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
    for _, name in ipairs(names) do
      local had = #picked
      firstOf(q, name, want, picked)
      if #picked > had then sources = sources + 1 end
    end
    -- one name's due set is already in claim order: the merge sort is for rows of several names
    if sources > 1 then table.sort(picked, before) end
    for i = 1, math.min(want, #picked) do
      local v = redis.call('HMGET', rowKey(picked[i].id), unpack(FIELDS))
      if v[1] and (i <= limit or tonumber(v[${at('att')}]) + 1 < tonumber(v[${at('max')}])) then
        seq = seq + 1
        take(v, picked[i].m, base .. ':' .. seq)
        taken[q] = true
      end
    end
    flushMoves()
  end
end
local function first(key)
  local top = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if #top == 0 then return nil end
  return tonumber(top[2])
end
local idle = { fmt(NOW) }
for q in pairs(asked) do
  if not taken[q] then
    local d, l = first(Q(q) .. ':d'), first(Q(q) .. ':l')
    local due = d or l or -1
    if d and l then due = math.min(d, l) end
    idle[#idle + 1] = q
    idle[#idle + 1] = fmt(due)
  end
end
flushCounts()
return { claimed, idle }
`;
