/** How many ARGV entries one request takes in {@link LUA_ENQUEUE} and {@link LUA_SCHEDULER_FIRE}. */
export const ENQUEUE_FIELDS = 15;

/**
 * Not a script: the enqueue logic shared by {@link LUA_ENQUEUE} and {@link LUA_SCHEDULER_FIRE} (a fire enqueues its
 * rows in the same atomic step that moves its watermark). Follows the prelude.
 *
 * `planEnqueue(n, base)` reads n requests of {@link ENQUEUE_FIELDS} arguments from ARGV[base + 1] on (the layout is
 * {@link LUA_ENQUEUE}'s) and decides each before anything is written: answers { 'ok', id, run, deduped, … } and the
 * rows to insert, or { 'conflict', index, holder id, holder run, holder state } and none. `insertRows` writes them.
 */
export const LUA_ENQUEUE_CORE = `
local function opt(v) if v == '\\0' then return nil end return v end
local function planEnqueue(n, base)
  local out, fresh, byId, byKey = { 'ok' }, {}, {}, {}
  for i = 0, n - 1 do
    local a = base + i * ${ENQUEUE_FIELDS}
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
        if ARGV[a + 12] == 'error' then return { 'conflict', fmt(i + 1), held[1], held[2], held[3] }, {} end
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
  return out, fresh
end
local function insertRows(fresh)
  for _, r in ipairs(fresh) do
    r.att = '0'
    r.ca = fmt(NOW)
    r.ua = r.ca
    redis.call('HSET', rowKey(r.id), unpack(flat(r)))
    redis.call('ZADD', P .. 'all', 0, r.id)
    redis.call('SADD', P .. 'queues', r.q)
    index(r)
  end
end
`;
