import { LUA_HAND_OFF } from './hand-off.lua';
import { LUA_PRELUDE_HELPERS, MEMBER_OFFSET } from './prelude-core.lua';

/**
 * Not a script: {@link LUA_ENQUEUE}'s batch of one (ARGV[2] == '1'), placed right after `LUA_PRELUDE_CLOCK` and
 * answering before the rest of the script runs. Written as one straight path over the request's ARGV places (its
 * layout is {@link LUA_ENQUEUE}'s, the request's fields from ARGV[3] on): no closure and no table is built unless the
 * call needs one — a serial enqueue's script built fourteen closures and three tables before (~33,000 of its ~174,000
 * server instructions).
 *
 * It decides and writes at once, with the answers of the batch path (`planEnqueue` and `insertAt`, enqueue-core) for a
 * batch of one: the id is taken by `ZADD all NX` (P..'all' lists exactly the ids that name a row: a stored id answers
 * 0, and only then is the row read) and the live key by HSETNX — a write that is also the check; a live key found held
 * takes the id back out of P..'all' (ZREM) before answering, so a dedupe or conflict leaves nothing written. A fresh
 * row is written as `insertAt` writes it (the same fields in the same order, the optional ones only when not NUL) and
 * indexed as a waiting row: its due (or delayed) set, its oldest-due index, its (name, state) count, the queue and name
 * sets when that count was untouched before, and the queue announced on P..'wake'.
 *
 * A row due now whose queue has hand-off registrations (`Q(q)..':ho'` exists) defines the prelude's helpers and
 * {@link LUA_HAND_OFF} there, and goes to an idle worker when `handOffTarget` names one: claimed for it by `handOff`
 * after the insert, and not announced, as it never waits.
 *
 * Answers the integer 1 for a row inserted fresh (the client knows the ids it sent), { 'ok', id, run, '1' } for the
 * row the request deduped to, or { 'conflict', '1', holder id, holder run id, holder state } under onConflict 'error'.
 */
export const LUA_ENQUEUE_ONE = `
if ARGV[2] == '1' then
  local id, name, q, at = ARGV[3], ARGV[5], ARGV[6], ARGV[11]
  local atNum = tonumber(at)
  local k = P .. 'q:' .. #q .. ':' .. q
  local to, giveTo = nil, nil
  if atNum <= NOW and redis.call('EXISTS', k .. ':ho') == 1 then
    ${LUA_PRELUDE_HELPERS}${LUA_HAND_OFF}
    to = handOffTarget(q, name)
    giveTo = handOff
  end
  if redis.call('ZADD', P .. 'all', 'NX', '0', id) == 0 then
    return { 'ok', id, redis.call('HGET', P .. 'j:' .. id, 'run'), '1' }
  end
  -- the live key: a NUL tenant and '' are one tenant (the prelude's liveKey)
  local ten, lk = ARGV[9], nil
  if ten == '\\0' or ten == '' then
    lk = #name .. ':' .. name .. '0:' .. ARGV[8]
  else
    lk = #name .. ':' .. name .. #ten .. ':' .. ten .. ARGV[8]
  end
  if redis.call('HSETNX', P .. 'live', lk, id) == 0 then
    redis.call('ZREM', P .. 'all', id)
    local holder = redis.call('HGET', P .. 'live', lk)
    local s = redis.call('HMGET', P .. 'j:' .. holder, 'run', 'st')
    if ARGV[14] == 'error' then return { 'conflict', '1', holder, s[1], s[2] } end
    return { 'ok', holder, s[1], '1' }
  end
  local st = (atNum > NOW) and 'delayed' or 'ready'
  local pri = ARGV[13]
  if ARGV[9] == '\\0' and ARGV[10] == '\\0' and ARGV[15] == '\\0' and ARGV[16] == '\\0' and ARGV[17] == '\\0' then
    -- the common row, no optional field: its arguments straight into the call, no table built
    redis.call('HSET', P .. 'j:' .. id, 'id', id, 'run', ARGV[4], 'name', name, 'q', q, 'input', ARGV[7],
      'key', ARGV[8], 'st', st, 'att', '0', 'max', ARGV[12], 'pri', pri, 'at', at, 'ca', NOW_TEXT, 'ua', NOW_TEXT)
  else
    local h = { 'id', id, 'run', ARGV[4], 'name', name, 'q', q, 'input', ARGV[7], 'key', ARGV[8],
      'st', st, 'att', '0', 'max', ARGV[12], 'pri', pri, 'at', at, 'ca', NOW_TEXT, 'ua', NOW_TEXT }
    local optional = { 9, 'ten', 10, 'by', 15, 'ck', 16, 'tp', 17, 'xr' }
    for i = 1, #optional, 2 do
      local v = ARGV[optional[i]]
      if v ~= '\\0' then
        h[#h + 1] = optional[i + 1]
        h[#h + 1] = v
      end
    end
    redis.call('HSET', P .. 'j:' .. id, unpack(h))
  end
  if to == nil then redis.call('SPUBLISH', P .. 'wake', q) end
  -- the sets of queues and of a queue's names only grow: a (queue, name, state) count touched before this row means
  -- an earlier row of the same queue and name put both members there already
  if redis.call('HINCRBY', k .. ':n', name .. '|' .. st, '1') == 1 then
    redis.call('SADD', P .. 'queues', q)
    redis.call('SADD', k .. ':names', name)
  end
  if st == 'ready' then
    redis.call('ZADD', k .. ':r:' .. name, pri, string.format('%015d', atNum + ${MEMBER_OFFSET}) .. id)
  else
    redis.call('ZADD', k .. ':d', at, id)
  end
  redis.call('ZADD', k .. ':w:' .. name, at, id)
  if to ~= nil then giveTo(to, 2) end
  return 1
end
`;
