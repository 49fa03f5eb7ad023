import { LUA_PACK_FRESH, LUA_PACK_TEXT } from './claim-pack.lua';

/**
 * The enqueue's hand-off (spliced into `LUA_ENQUEUE_ONE`, the enqueue's batch of one, after the prelude's helpers,
 * and built only by a call whose row is due now in a queue with registrations): a fresh row due now goes straight to
 * an idle worker registered for its queue, claimed for it inside the enqueue and pushed onto the list that worker
 * blocks on — one hop instead of an announcement heard and then a claim sent.
 *
 * Keys (P = the prefix, Q(q) as in the prelude), written by the worker (`redis-hand-off.ts`) right before each blocking
 * pop, so a registration lives only while its pops keep coming:
 *   Q(q)..':ho'          ZSET  the ids of workers registered for q (score 0)
 *   Q(q)..':ho:'..wid    STRING `<free>|<vt>|<names>`: the slots it can take, its lease length (ms), the names it
 *                               serves ('*': every name, else NUL-led, NUL-separated and NUL-ended); set with PX, so it
 *                               lapses by itself when the worker stops popping (a member whose string is gone is
 *                               dropped from the set by the next enqueue that reads it)
 *   P..'hl:'..wid        LIST  the rows handed to the worker, one entry each (see `handOff`)
 *
 * `handOffTarget(q, name)` answers { worker id, vt, free, registration key, names } of a worker a fresh ready row of
 * (q, name) may be handed to, or nil. Only when the row would be the next one claimed: q is not paused and no row of q
 * is due ahead of it (no due set of any of q's names holds a row, no delayed row of q has fallen due) — the rules a
 * claim picks by (names served, paused, priority then run time), so nothing is handed over out of order. A worker
 * with no free slot is never chosen: a hand-off takes one, and the registration whose last one went is removed. Fleet
 * concurrency and per-key caps are the run's, as for a claimed row.
 *
 * `handOff(to, id, run, name, q, input, key, ten, by, at, max, pri, ck, tp, xr)` inserts the row the enqueue is writing
 * (its id taken and its live key held already; the optional fields NUL when null) straight as running for that
 * worker: the fields `insertAt` writes, in its order, with a claim's values where a claim would write them (state
 * running, attempt 1, the update time) and the claim's own after them (the worker, a claim token, a lease of NOW +
 * vt); the queue's lease set; its (name, running) count, the queue and name sets as the enqueue adds them. It never
 * enters a due or oldest-age set, nor the ready count: the same row and indexes as inserting it ready and claiming it
 * at once, ~8 commands fewer. It then pushes onto the worker's list one entry: the token base, NUL, NOW, NUL, the lease
 * expiry, NUL, then the row packed as a claim packs its rows (`packFresh`, {@link LUA_PACK_FRESH}: what `packRow`
 * answers for it once stored, built from the fields in hand), which the worker decodes as a claim's reply. The token
 * is base .. ':1'; base is unique per hand-off ('h', NOW, the row id: an id is inserted once). The
 * list lapses a minute past the lease after its last entry, so a dead worker's leaves nothing behind for good: its
 * rows are rescued when their leases lapse, like any claimed row's.
 */
export const LUA_HAND_OFF = `${LUA_PACK_TEXT}${LUA_PACK_FRESH}
local function handOffTarget(q, name)
  local k = Q(q)
  local regs = redis.call('ZRANGE', k .. ':ho', '0', '15')
  if #regs == 0 then return nil end
  if redis.call('SISMEMBER', P .. 'paused', q) == 1 then return nil end
  if #redis.call('ZRANGEBYSCORE', k .. ':d', '-inf', fmt(NOW), 'LIMIT', '0', '1') > 0 then return nil end
  for _, n in ipairs(redis.call('SMEMBERS', k .. ':names')) do
    if redis.call('EXISTS', k .. ':r:' .. n) == 1 then return nil end
  end
  for _, w in ipairs(regs) do
    local key = k .. ':ho:' .. w
    local r = redis.call('GET', key)
    if not r then
      redis.call('ZREM', k .. ':ho', w)
    else
      local free, vt, names = string.match(r, '^(%d+)|(%d+)|(.*)$')
      if free and tonumber(free) > 0
        and (names == '*' or string.find(names, '\\0' .. name .. '\\0', 1, true)) then
        return { w, tonumber(vt), tonumber(free), key, names, vt }
      end
    end
  end
  return nil
end
local function handOff(to, id, run, name, q, input, key, ten, by, at, max, pri, ck, tp, xr)
  local k, w = Q(q), to[1]
  local base = 'h' .. NOW_TEXT .. ':' .. id
  local le = fmt(NOW + to[2])
  local rk = rowKey(id)
  if ten == '\\0' and by == '\\0' and ck == '\\0' and tp == '\\0' and xr == '\\0' then
    redis.call('HSET', rk, 'id', id, 'run', run, 'name', name, 'q', q, 'input', input, 'key', key, 'st', 'running',
      'att', '1', 'max', max, 'pri', pri, 'at', at, 'ca', NOW_TEXT, 'ua', NOW_TEXT, 'w', w, 'c', base .. ':1', 'le', le)
  else
    local h = { 'id', id, 'run', run, 'name', name, 'q', q, 'input', input, 'key', key, 'st', 'running', 'att', '1',
      'max', max, 'pri', pri, 'at', at, 'ca', NOW_TEXT, 'ua', NOW_TEXT }
    local optional = { 'ten', ten, 'by', by, 'ck', ck, 'tp', tp, 'xr', xr }
    for i = 1, #optional, 2 do
      if optional[i + 1] ~= '\\0' then
        h[#h + 1] = optional[i]
        h[#h + 1] = optional[i + 1]
      end
    end
    h[#h + 1] = 'w'
    h[#h + 1] = w
    h[#h + 1] = 'c'
    h[#h + 1] = base .. ':1'
    h[#h + 1] = 'le'
    h[#h + 1] = le
    redis.call('HSET', rk, unpack(h))
  end
  -- the sets of queues and of a queue's names only grow (see the enqueue's own count)
  if redis.call('HINCRBY', k .. ':n', name .. '|running', '1') == 1 then
    redis.call('SADD', P .. 'queues', q)
    redis.call('SADD', k .. ':names', name)
  end
  redis.call('ZADD', k .. ':l', le, id)
  if to[3] > 1 then
    redis.call('SET', to[4], fmt(to[3] - 1) .. '|' .. to[6] .. '|' .. to[5], 'KEEPTTL')
  else
    redis.call('DEL', to[4])
    redis.call('ZREM', k .. ':ho', w)
  end
  local list = P .. 'hl:' .. w
  redis.call('RPUSH', list, base .. '\\0' .. NOW_TEXT .. '\\0' .. le .. '\\0' ..
    packFresh(id, run, name, q, input, key, ten, by, max, pri, at, ck, tp, xr))
  redis.call('PEXPIRE', list, fmt(to[2] + 60000))
end
`;
