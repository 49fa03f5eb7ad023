import { LUA_PRELUDE } from './prelude.lua';

/** How many ARGV entries one request takes in {@link LUA_ENQUEUE}. */
export const ENQUEUE_FIELDS = 15;

/**
 * Inserts a batch of rows (one request is a batch of one), all or nothing.
 *
 * KEYS[1] the prefix. ARGV[1] clock override ('' = server TIME). ARGV[2] request count n, then n groups of
 * {@link ENQUEUE_FIELDS}: id, runId, name, queue, input (JSON text), idempotencyKey, tenant ('\0' = null; a null
 * tenant and '' are one tenant in the live key), enqueuedBy ('\0' = null), runAt, maxAttempts, priority, onConflict ('dedupe' |
 * 'error'), concurrencyKey ('\0' = null), traceparent ('\0' = null), crossTenantReason ('\0' = null).
 *
 * Each request in order: an id already naming a row (live or finished, or earlier in the batch) answers that row;
 * else a live row holding (name, tenant, key) — stored or earlier in the batch — answers that row, unless
 * onConflict is 'error'; else the row is inserted (state delayed when runAt is after now, else ready). Decisions are
 * made for the whole batch before anything is written, so a conflict writes nothing.
 *
 * Returns { 'ok', id1, run1, deduped1 ('1'|'0'), … } or { 'conflict', index (1-based), holder id, holder run id,
 * holder state } when a request under onConflict 'error' met a live key.
 */
export const LUA_ENQUEUE = `${LUA_PRELUDE}
local n = tonumber(ARGV[2])
local NF = ${ENQUEUE_FIELDS}
local out = { 'ok' }
local fresh = {}
local byId, byKey = {}, {}
local function opt(v) if v == '\\0' then return nil end return v end
for i = 0, n - 1 do
  local a = 2 + i * NF
  local r = {
    id = ARGV[a + 1], run = ARGV[a + 2], name = ARGV[a + 3], q = ARGV[a + 4], input = ARGV[a + 5],
    key = ARGV[a + 6], ten = opt(ARGV[a + 7]), by = opt(ARGV[a + 8]), at = ARGV[a + 9], max = ARGV[a + 10],
    pri = ARGV[a + 11], ck = opt(ARGV[a + 13]), tp = opt(ARGV[a + 14]), xr = opt(ARGV[a + 15]),
  }
  local lk = liveKey(r)
  local hit = byId[r.id]
  if not hit then
    local stored = redis.call('HMGET', rowKey(r.id), 'run', 'st')
    if stored[1] then hit = { r.id, stored[1], stored[2] } end
  end
  if not hit then
    local held = byKey[lk]
    if not held then
      local holder = redis.call('HGET', P .. 'live', lk)
      if holder then
        local h = redis.call('HMGET', rowKey(holder), 'run', 'st')
        held = { holder, h[1], h[2] }
      end
    end
    if held then
      if ARGV[a + 12] == 'error' then return { 'conflict', fmt(i + 1), held[1], held[2], held[3] } end
      hit = held
    end
  end
  if hit then
    out[#out + 1] = hit[1]
    out[#out + 1] = hit[2]
    out[#out + 1] = '1'
  else
    r.st = (tonumber(r.at) > NOW) and 'delayed' or 'ready'
    byId[r.id] = { r.id, r.run, r.st }
    byKey[lk] = byId[r.id]
    fresh[#fresh + 1] = r
    out[#out + 1] = r.id
    out[#out + 1] = r.run
    out[#out + 1] = '0'
  end
end
for _, r in ipairs(fresh) do
  r.att = '0'
  r.ca = fmt(NOW)
  r.ua = r.ca
  redis.call('HSET', rowKey(r.id), unpack(flat(r)))
  redis.call('ZADD', P .. 'all', 0, r.id)
  redis.call('SADD', P .. 'queues', r.q)
  index(r)
end
return out
`;
