/** How many ARGV entries one request takes in {@link LUA_ENQUEUE} and {@link LUA_SCHEDULER_FIRE}. */
export const ENQUEUE_FIELDS = 15;

/**
 * Not a script: the batch enqueue logic shared by {@link LUA_ENQUEUE} and {@link LUA_SCHEDULER_FIRE} (a fire enqueues
 * its rows in the same atomic step that moves its watermark). Follows `LUA_PRELUDE_CORE` (the enqueue takes it alone;
 * the fire, the whole prelude, which opens with it): it calls `P`, `NOW`, `NOW_TEXT`, `fmt`, `OFFSET`, `Q`, `rowKey`
 * and `announce`. Its batch half, `planEnqueue` and `insertRows`, is {@link LUA_ENQUEUE_PLAN}, which a script places
 * after it. A batch of one is {@link LUA_ENQUEUE_ONE}'s, which writes the same row and indexes straight, before any of
 * these closures is built.
 *
 * A request is read where it lies in ARGV (`a` = the index before its first field; the layout is {@link LUA_ENQUEUE}'s)
 * rather than copied into a table: the row hash's arguments are built straight from ARGV, the optional fields left out
 * when null (NUL), and a fresh row is indexed by the waiting-row half of the prelude's `index` written out — ZADDs into
 * its due (or delayed) set and its oldest-due index, its (name, state) count by HINCRBY, the queue and name added to their sets
 * only when its (queue, name, state) count was untouched before — so an enqueue allocates little and sends only the
 * commands a waiting row needs.
 *
 * `planEnqueue(n, base)` reads n requests from ARGV[base + 1] on and decides each before anything is written: answers
 * { 'ok', id, run, deduped, … } and the rows to insert, or { 'conflict', index, holder id, holder run, holder state }
 * and none. `insertRows` writes them.
 */
export const LUA_ENQUEUE_CORE = `
-- (a number argument of redis.call is formatted by the server with a sprintf each call: constants are sent as text)
-- the optional fields: ARGV offset within a request, and the hash field it is stored in when not NUL
local OPTIONAL = { 7, 'ten', 8, 'by', 13, 'ck', 14, 'tp', 15, 'xr' }
-- the live key of the request at a: as the prelude's liveKey (a NUL tenant and '' are one tenant)
local function liveKeyAt(a)
  local name, t = ARGV[a + 3], ARGV[a + 7]
  -- no tenant (the common request): its length written as text, not formatted
  if t == '\\0' or t == '' then return #name .. ':' .. name .. '0:' .. ARGV[a + 6] end
  return #name .. ':' .. name .. #t .. ':' .. t .. ARGV[a + 6]
end
-- { id, run, state } of a stored row (run and state nil when there is none)
local function stored(id)
  local s = redis.call('HMGET', rowKey(id), 'run', 'st')
  return { id, s[1], s[2] }
end
-- writes the row of the request at a in state st (ready or delayed) — its fields in the order claim-pack's packRow
-- reads by place first — and indexes it as a waiting row
local function insertAt(a, st)
  local id, name, q, at, pri = ARGV[a + 1], ARGV[a + 3], ARGV[a + 4], ARGV[a + 9], ARGV[a + 11]
  local now = NOW_TEXT
  local optional = false
  for i = 1, #OPTIONAL, 2 do
    if ARGV[a + OPTIONAL[i]] ~= '\\0' then optional = true end
  end
  if not optional then
    -- the common row, no optional field: its arguments straight into the call, no table built (same field order)
    redis.call('HSET', rowKey(id), 'id', id, 'run', ARGV[a + 2], 'name', name, 'q', q, 'input', ARGV[a + 5],
      'key', ARGV[a + 6], 'st', st, 'att', '0', 'max', ARGV[a + 10], 'pri', pri, 'at', at, 'ca', now, 'ua', now)
  else
    local h = { 'id', id, 'run', ARGV[a + 2], 'name', name, 'q', q, 'input', ARGV[a + 5], 'key', ARGV[a + 6],
      'st', st, 'att', '0', 'max', ARGV[a + 10], 'pri', pri, 'at', at, 'ca', now, 'ua', now }
    for i = 1, #OPTIONAL, 2 do
      local v = ARGV[a + OPTIONAL[i]]
      if v ~= '\\0' then
        h[#h + 1] = OPTIONAL[i + 1]
        h[#h + 1] = v
      end
    end
    redis.call('HSET', rowKey(id), unpack(h))
  end
  redis.call('ZADD', P .. 'all', '0', id)
  redis.call('HSET', P .. 'live', liveKeyAt(a), id)
  announce(q)
  local k = Q(q)
  local counts = k .. ':n'
  -- the sets of queues and of a queue's names only grow, and a (queue, name, state) count is only ever bumped for a
  -- row of that queue and name: a count that was touched before this row (not 1 now) means an earlier row of the same
  -- queue and name put both members there already
  if redis.call('HINCRBY', counts, name .. '|' .. st, '1') == 1 then
    redis.call('SADD', P .. 'queues', q)
    redis.call('SADD', k .. ':names', name)
  end
  if st == 'ready' then
    redis.call('ZADD', k .. ':r:' .. name, pri, string.format('%015d', tonumber(at) + OFFSET) .. id)
  else
    redis.call('ZADD', k .. ':d', at, id)
  end
  redis.call('ZADD', k .. ':w:' .. name, at, id)
end
-- the state a fresh row of the request at a starts in: delayed when its run time is after now
local function freshState(a)
  return (tonumber(ARGV[a + 9]) > NOW) and 'delayed' or 'ready'
end
`;

/**
 * Not a script: the batch half of the enqueue logic, `planEnqueue` and `insertRows` (see {@link LUA_ENQUEUE_CORE}),
 * placed after it.
 */
export const LUA_ENQUEUE_PLAN = `
local function planEnqueue(n, base)
  local out, fresh, byId, byKey = { 'ok' }, {}, {}, {}
  for i = 0, n - 1 do
    local a = base + i * ${ENQUEUE_FIELDS}
    local id = ARGV[a + 1]
    local lk = liveKeyAt(a)
    local hit = byId[id]
    if not hit then
      local row = stored(id)
      if row[2] then hit = row end
    end
    if not hit then
      local held = byKey[lk]
      if not held then
        local holder = redis.call('HGET', P .. 'live', lk)
        if holder then held = stored(holder) end
      end
      if held then
        if ARGV[a + 12] == 'error' then return { 'conflict', fmt(i + 1), held[1], held[2], held[3] }, {} end
        hit = held
      end
    end
    if hit then
      out[#out + 1] = hit[1]
      out[#out + 1] = hit[2]
      out[#out + 1] = '1'
    else
      local st = freshState(a)
      byId[id] = { id, ARGV[a + 2], st }
      byKey[lk] = byId[id]
      fresh[#fresh + 1] = a
      fresh[#fresh + 1] = st
      out[#out + 1] = id
      out[#out + 1] = ARGV[a + 2]
      out[#out + 1] = '0'
    end
  end
  return out, fresh
end
local function insertRows(fresh)
  for i = 1, #fresh, 2 do insertAt(fresh[i], fresh[i + 1]) end
end
`;
