import { LUA_PRELUDE } from './prelude.lua';

/** The most arguments after the key one batched index command carries (even: score/member pairs stay whole). */
const CHUNK = 1000;

/**
 * Settles runs done, each fenced on its own claim (one ack is a batch of one).
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] item count n. ARGV[3] the worker id of every item, or '' when
 * the items name their own (a worker's batch is all its own: one argument instead of n). Then n groups of: job id,
 * claim token, run duration in ms (whole, ≥ 0), and — only when ARGV[3] is '' — the item's worker id.
 *
 * An item lands only while its row is running under exactly that worker and claim; it then becomes done, its live key
 * released, and is counted (`done`, its duration) in the job's current 1-minute bucket. An item naming a row a
 * previous item already settled answers 0 (each row's own hash is written at once).
 *
 * Shaped for the drain's hot path: a row is read by the few fields its fence and its indexes need (never its input),
 * and written by one command: its state, finish and update times. Its worker, claim and lease fields stay stored —
 * every reader takes them as absent on a row that is not running (`redis-rows.ts`; every fence checks the state
 * first), as every move out of running clears them on every driver — so no second command deletes them. The live keys
 * the batch's rows held are read in one command, and the index moves of the batch (out of the queues' lease sets, into
 * the done set, the live keys released) are sent once per key at the end, in chunks of {@link CHUNK} arguments; the
 * state counts and the settle counters are summed per queue and name first (one bump per field at the end, no key or
 * field name built per row).
 *
 * Returns one 1 (landed) or 0 per item, in order.
 */
export const LUA_ACK = `${LUA_PRELUDE}
DEFERRED = {}
local n = tonumber(ARGV[2])
local shared = ARGV[3]
local stride = shared == '' and 4 or 3
local now = NOW_TEXT
local out = {}
local finished, held, holders = {}, {}, {}
-- the live key's name and tenant part, by name then tenant
local livePrefix = {}
-- per queue: its lease set's key, the ids leaving it, and per name the rows settled and their durations
local queues = {}
-- a duration's text read as a number once a call (a batch's short runs share a few values; each read is a strtod)
local MS = {}
for i = 0, n - 1 do
  local a = 4 + i * stride
  local id = ARGV[a]
  local worker = shared
  if stride == 4 then worker = ARGV[a + 3] end
  local rk = P .. 'j:' .. id
  local v = redis.call('HMGET', rk, 'st', 'w', 'c', 'q', 'name', 'ten', 'key')
  if v[1] == 'running' and v[2] == worker and v[3] == ARGV[a + 1] then
    local q, name = v[4], v[5]
    local ten = v[6] or ''
    -- the prelude's liveKey, written out (no table a row), its name and tenant part built once per pair: a length
    -- turned into text is a sprintf
    local byTen = livePrefix[name]
    if byTen == nil then
      byTen = {}
      livePrefix[name] = byTen
    end
    local prefix = byTen[ten]
    if prefix == nil then
      prefix = #name .. ':' .. name .. #ten .. ':' .. ten
      byTen[ten] = prefix
    end
    local lk = prefix .. v[7]
    held[#held + 1] = lk
    holders[#holders + 1] = id
    redis.call('HSET', rk, 'st', 'done', 'fin', now, 'ua', now)
    local Qd = queues[q]
    if Qd == nil then
      Qd = { ids = {}, names = {} }
      queues[q] = Qd
    end
    Qd.ids[#Qd.ids + 1] = id
    local per = Qd.names[name]
    if per == nil then
      per = { n = 0, ms = 0 }
      Qd.names[name] = per
    end
    per.n = per.n + 1
    local d = ARGV[a + 2]
    local ms = MS[d]
    if ms == nil then
      ms = tonumber(d)
      MS[d] = ms
    end
    per.ms = per.ms + ms
    finished[#finished + 1] = now
    finished[#finished + 1] = id
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
local function chunked(cmd, key, list)
  for i = 1, #list, ${CHUNK} do redis.call(cmd, key, unpack(list, i, math.min(i + ${CHUNK - 1}, #list))) end
end
-- the live keys released: those the settled rows still held, read in one command per chunk
local released = {}
for i = 1, #held, ${CHUNK} do
  local last = math.min(i + ${CHUNK - 1}, #held)
  local holding = redis.call('HMGET', P .. 'live', unpack(held, i, last))
  for j = i, last do
    if holding[j - i + 1] == holders[j] then released[#released + 1] = held[j] end
  end
end
for q, Qd in pairs(queues) do
  local k = Q(q)
  chunked('ZREM', k .. ':l', Qd.ids)
  bump(k .. ':n', 'done', #Qd.ids)
  for name, per in pairs(Qd.names) do
    bump(k .. ':n', name .. '|running', -per.n)
    countInto(name, 'done', per.n)
    countInto(name, 'durationMs', per.ms)
  end
end
chunked('ZADD', P .. 'fin:done', finished)
chunked('HDEL', P .. 'live', released)
flushCounts()
return out
`;
