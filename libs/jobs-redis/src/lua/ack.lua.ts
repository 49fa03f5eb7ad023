import { LUA_PRELUDE } from './prelude.lua';

/** The most arguments after the key one batched index command carries (even: score/member pairs stay whole). */
const CHUNK = 1000;

/**
 * Settles runs done, each fenced on its own claim (one ack is a batch of one).
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] item count n, then n groups of: job id, worker id, claim token,
 * run duration in ms (whole, ≥ 0).
 *
 * An item lands only while its row is running under exactly that worker and claim; it then becomes done, its claim,
 * worker and lease cleared, its live key released, and is counted (`done`, its duration) in the job's current 1-minute
 * bucket. An item naming a row a previous item already settled answers 0 (each row's own hash is written at once).
 *
 * Shaped for the drain's hot path: a row is read by the few fields its fence and its indexes need (never its input),
 * and the index moves of the batch (out of the queues' lease sets, into the done set, the live keys released) are sent
 * once per key at the end, in chunks of {@link CHUNK} arguments; the counts once per field.
 *
 * Returns one 1 (landed) or 0 per item, in order.
 */
export const LUA_ACK = `${LUA_PRELUDE}
DEFERRED = {}
local n = tonumber(ARGV[2])
local now = fmt(NOW)
local out = {}
local leased, finished, released = {}, {}, {}
for i = 0, n - 1 do
  local a = 3 + i * 4
  local id = ARGV[a]
  local v = redis.call('HMGET', rowKey(id), 'st', 'w', 'c', 'q', 'name', 'ten', 'key')
  if v[1] == 'running' and v[2] == ARGV[a + 1] and v[3] == ARGV[a + 2] then
    local r = { id = id, q = v[4], name = v[5], ten = v[6] or nil, key = v[7] }
    local lk = liveKey(r)
    if redis.call('HGET', P .. 'live', lk) == id then released[#released + 1] = lk end
    redis.call('HSET', rowKey(id), 'st', 'done', 'fin', now, 'ua', now)
    redis.call('HDEL', rowKey(id), 'w', 'c', 'le')
    local k = Q(r.q)
    local ids = leased[k]
    if ids == nil then
      ids = {}
      leased[k] = ids
    end
    ids[#ids + 1] = id
    finished[#finished + 1] = now
    finished[#finished + 1] = id
    bump(k .. ':n', 'running', -1)
    bump(k .. ':n', r.name .. '|running', -1)
    bump(k .. ':n', 'done', 1)
    countInto(r.name, 'done', 1)
    countInto(r.name, 'durationMs', tonumber(ARGV[a + 3]))
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
local function chunked(cmd, key, list)
  for i = 1, #list, ${CHUNK} do redis.call(cmd, key, unpack(list, i, math.min(i + ${CHUNK - 1}, #list))) end
end
for k, ids in pairs(leased) do chunked('ZREM', k .. ':l', ids) end
chunked('ZADD', P .. 'fin:done', finished)
chunked('HDEL', P .. 'live', released)
flushCounts()
return out
`;
