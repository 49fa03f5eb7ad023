import { LUA_PRELUDE } from './prelude.lua';

/**
 * Rescues the lapsed leases of some queues (their worker died): a row on its final attempt is buried, any other goes
 * back to waiting (state ready, its attempt kept) for the next claim to take in claim order.
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] visibility timeout ms. ARGV[3] queue count n, then per queue:
 * the queue, the offset its page starts at (see below), then k (-1 = every name is served) and k served names. Then m
 * and m names whose exhausted rows are buried `failed` rather than `dead` (`retry.deadLetter: false`).
 *
 * Paused queues are left alone. A lapsed row of a served name is rescued at once; of another name it is not re-taken,
 * and on its final attempt it is buried only once its lease lapsed a visibility timeout more (a worker serving it
 * would have buried it well before). A burial is counted (`dead` or `failed`) in the job's current 1-minute bucket by
 * this same script. A row put back to waiting announces its queue on the wake channel (the prelude's `index`), so idle
 * workers claim it at once instead of at their next poll.
 *
 * One call reads a page of at most 1,000 lapsed leases per queue, oldest lapse first, from the queue's offset: the
 * rows it left in place (names it does not serve) stay ahead of the rest, so a caller that always read from the start
 * would never get past 1,000 of them to its own rows behind (River #1318). The caller moves the offset past what a
 * full page left in place, and back to the start after a page that was not full (`redis-rescue-cursors.ts`).
 *
 * Returns two arrays: the buried rows, each a flat HGETALL-style array of its fields; and per queue, in order, the
 * leases its page read and how many of them it left in place.
 */
export const LUA_RESCUE = `${LUA_PRELUDE}
local vt = tonumber(ARGV[2])
local nq = tonumber(ARGV[3])
local a = 4
local queues = {}
for i = 1, nq do
  local q = ARGV[a]
  local offset = tonumber(ARGV[a + 1])
  local k = tonumber(ARGV[a + 2])
  local served = false
  if k >= 0 then
    served = {}
    for j = 1, k do served[ARGV[a + 2 + j]] = true end
    a = a + 3 + k
  else
    a = a + 3
  end
  queues[#queues + 1] = { q = q, offset = offset, served = served }
end
local drop = {}
local m = tonumber(ARGV[a])
for j = 1, m do drop[ARGV[a + j]] = true end

local buried = {}
local pages = {}
for _, entry in ipairs(queues) do
  local read, left = 0, 0
  if redis.call('SISMEMBER', P .. 'paused', entry.q) == 0 then
    local lapsed = redis.call('ZRANGEBYSCORE', Q(entry.q) .. ':l', '-inf', fmt(NOW), 'LIMIT', entry.offset, 1000)
    read = #lapsed
    for _, id in ipairs(lapsed) do
      local r = load(id)
      if r == nil or r.st ~= 'running' then
        redis.call('ZREM', Q(entry.q) .. ':l', id)
      else
        local serves = entry.served == false or entry.served[r.name] == true
        if tonumber(r.att) >= tonumber(r.max) then
          if serves or tonumber(r.le) <= NOW - vt then
            local st = drop[r.name] and 'failed' or 'dead'
            move(r, { st = st, err = 'LEASE_LAPSED_FINAL_ATTEMPT', w = false, c = false, le = false,
              fin = fmt(NOW), ua = fmt(NOW) })
            countInto(r.name, st, 1)
            buried[#buried + 1] = flat(r)
          else
            left = left + 1
          end
        elseif serves then
          move(r, { st = 'ready', w = false, c = false, le = false, ua = fmt(NOW) })
        else
          left = left + 1
        end
      end
    end
  end
  pages[#pages + 1] = read
  pages[#pages + 1] = left
end
return { buried, pages }
`;
