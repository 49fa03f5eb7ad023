/**
 * The set a bulk script walks: not a script of its own — `requeue-many`, `remove-many` and `promote-many` are
 * {@link LUA_PRELUDE}, this text, then their body, so one EVALSHA carries everything.
 *
 * Reads ARGV[2] state, ARGV[3] queue, ARGV[4] name, ARGV[5] tenant ('\0' = any), and defines `collect()`: the ids of
 * the rows of that state (and queue, name, tenant), in id order (UUIDv7: oldest first). Each state is read from the
 * index it lives in, never from every row: a finished state from P..'fin:'..state, a waiting state from its queues'
 * due and delayed sets (`waitingOnly`: only rows whose run time is still ahead — the delayed set past NOW), a running
 * one from the queues' lease sets. The walk is O(rows of that state in those queues), in the one script: Redis runs
 * nothing else meanwhile, which is the price of an exact `remaining`.
 */
export const LUA_BULK_COLLECT = `
local WANT = { st = ARGV[2], q = ARGV[3], name = ARGV[4], ten = ARGV[5] }
local ANY = '\\0'
local function wanted(id)
  local v = redis.call('HMGET', rowKey(id), 'st', 'q', 'name', 'ten')
  return v[1] == WANT.st and (WANT.q == ANY or v[2] == WANT.q) and (WANT.name == ANY or v[3] == WANT.name)
    and (WANT.ten == ANY or v[4] == WANT.ten)
end
local function queuesOf()
  if WANT.q ~= ANY then return { WANT.q } end
  return redis.call('SMEMBERS', P .. 'queues')
end
local function candidates(waitingOnly)
  local ids = {}
  local function add(id) ids[#ids + 1] = id end
  if not LIVE[WANT.st] then
    for _, id in ipairs(redis.call('ZRANGE', P .. 'fin:' .. WANT.st, 0, -1)) do add(id) end
    return ids
  end
  for _, q in ipairs(queuesOf()) do
    if WANT.st == 'running' then
      for _, id in ipairs(redis.call('ZRANGE', Q(q) .. ':l', 0, -1)) do add(id) end
    else
      for _, id in ipairs(redis.call('ZRANGEBYSCORE', Q(q) .. ':d', '(' .. fmt(NOW), '+inf')) do add(id) end
      if not waitingOnly then
        for _, id in ipairs(redis.call('ZRANGEBYSCORE', Q(q) .. ':d', '-inf', fmt(NOW))) do add(id) end
        local names = WANT.name ~= ANY and { WANT.name } or redis.call('SMEMBERS', Q(q) .. ':names')
        for _, name in ipairs(names) do
          for _, m in ipairs(redis.call('ZRANGE', Q(q) .. ':r:' .. name, 0, -1)) do add(string.sub(m, 16)) end
        end
      end
    end
  end
  return ids
end
local function collect(waitingOnly)
  local out = {}
  for _, id in ipairs(candidates(waitingOnly)) do
    if wanted(id) then out[#out + 1] = id end
  end
  table.sort(out, strlt)
  return out
end
`;
