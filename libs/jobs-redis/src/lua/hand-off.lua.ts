import { LUA_CLAIM_PACK } from './claim-pack.lua';

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
 * `handOff(to, id, name, q, atNum)` makes the row just inserted as ready (its id, name, queue and run time) running for that worker
 * with a claim's writes: attempt 1, the worker, a claim token, a lease of NOW + vt, the update time, out of its due and
 * oldest-age sets into the queue's lease set, its count moved name|ready → name|running. It then pushes onto the
 * worker's list one entry: the token base, NUL, NOW, NUL, the lease expiry, NUL, then the row packed as the claim packs
 * its rows (`packRow` of {@link LUA_CLAIM_PACK}, from its HGETALL list as stored before the claim's writes), which the
 * worker decodes as a claim's reply. The token is base .. ':1'; base is unique per hand-off ('h', NOW, the row id: an id is inserted once). The
 * list lapses a minute past the lease after its last entry, so a dead worker's leaves nothing behind for good: its
 * rows are rescued when their leases lapse, like any claimed row's.
 */
export const LUA_HAND_OFF = `${LUA_CLAIM_PACK}
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
        return { w, tonumber(vt), tonumber(free), key, names }
      end
    end
  end
  return nil
end
local function handOff(to, id, name, q, atNum)
  local k, w = Q(q), to[1]
  local rk = rowKey(id)
  local v = redis.call('HGETALL', rk)
  local base = 'h' .. fmt(NOW) .. ':' .. id
  local le, ua = fmt(NOW + to[2]), fmt(NOW)
  redis.call('HSET', rk, 'st', 'running', 'att', '1', 'w', w, 'c', base .. ':1', 'le', le, 'ua', ua)
  redis.call('ZREM', k .. ':r:' .. name, string.format('%015d', atNum + OFFSET) .. id)
  redis.call('ZREM', k .. ':w:' .. name, id)
  redis.call('ZADD', k .. ':l', le, id)
  redis.call('HINCRBY', k .. ':n', name .. '|ready', -1)
  redis.call('HINCRBY', k .. ':n', name .. '|running', 1)
  if to[3] > 1 then
    redis.call('SET', to[4], fmt(to[3] - 1) .. '|' .. fmt(to[2]) .. '|' .. to[5], 'KEEPTTL')
  else
    redis.call('DEL', to[4])
    redis.call('ZREM', k .. ':ho', w)
  end
  local list = P .. 'hl:' .. w
  redis.call('RPUSH', list, base .. '\\0' .. ua .. '\\0' .. le .. '\\0' .. (packRow(v, id)))
  redis.call('PEXPIRE', list, to[2] + 60000)
end
`;
