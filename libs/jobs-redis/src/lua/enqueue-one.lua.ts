import { LUA_HAND_OFF } from './hand-off.lua';
import { LUA_PRELUDE_HELPERS, MEMBER_OFFSET } from './prelude-core.lua';

/**
 * The count argument (ARGV[2]) of {@link LUA_ENQUEUE}'s plain single request: one request with no tenant, actor,
 * concurrency key, traceparent or cross-tenant reason (all null) under onConflict 'dedupe' — an app's common enqueue —
 * sent as its {@link ENQUEUE_ONE_PLAIN_FIELDS} fields alone, six arguments fewer than the full layout (each argument
 * costs the server ~1,200 instructions to read and to hand the script).
 */
export const ENQUEUE_ONE_PLAIN = '1p';

/** How many ARGV entries the plain single request takes after its count: id, runId, name, queue, input, idempotencyKey, runAt, maxAttempts, priority. */
export const ENQUEUE_ONE_PLAIN_FIELDS = 9;

/**
 * Not a script: {@link LUA_ENQUEUE}'s batch of one (ARGV[2] == '1', the full layout, or {@link ENQUEUE_ONE_PLAIN},
 * the plain one), placed right after `LUA_PRELUDE_CLOCK` and answering before the rest of the script runs. Written as
 * one straight path over the request's ARGV places (the layouts are {@link LUA_ENQUEUE}'s, the request's fields from
 * ARGV[3] on; the plain one's absent fields read as NUL and 'dedupe'): no closure and no table is built unless the
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
 * {@link LUA_HAND_OFF} there, and goes to an idle worker when `handOffTarget` names one: inserted straight as
 * running for it by `handOff` once its id and live key are taken (never indexed as waiting), and not announced, as it
 * never waits.
 *
 * Answers the integer 1 for a row inserted fresh (the client knows the ids it sent), { 'ok', id, run, '1' } for the
 * row the request deduped to, or { 'conflict', '1', holder id, holder run id, holder state } under onConflict 'error'.
 */
export const LUA_ENQUEUE_ONE = `
if ARGV[2] == '1' or ARGV[2] == '${ENQUEUE_ONE_PLAIN}' then
  local id, name, q = ARGV[3], ARGV[5], ARGV[6]
  local ten, by, at, max, pri, onConflict, ck, tp, xr
  if ARGV[2] == '1' then
    ten, by, at, max, pri, onConflict, ck, tp, xr = ARGV[9], ARGV[10], ARGV[11], ARGV[12], ARGV[13], ARGV[14],
      ARGV[15], ARGV[16], ARGV[17]
  else
    ten, by, at, max, pri, onConflict, ck, tp, xr = '\\0', '\\0', ARGV[9], ARGV[10], ARGV[11], 'dedupe', '\\0', '\\0',
      '\\0'
  end
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
  local lk
  if ten == '\\0' or ten == '' then
    lk = #name .. ':' .. name .. '0:' .. ARGV[8]
  else
    lk = #name .. ':' .. name .. #ten .. ':' .. ten .. ARGV[8]
  end
  if redis.call('HSETNX', P .. 'live', lk, id) == 0 then
    redis.call('ZREM', P .. 'all', id)
    local holder = redis.call('HGET', P .. 'live', lk)
    local s = redis.call('HMGET', P .. 'j:' .. holder, 'run', 'st')
    if onConflict == 'error' then return { 'conflict', '1', holder, s[1], s[2] } end
    return { 'ok', holder, s[1], '1' }
  end
  if to ~= nil then
    giveTo(to, id, ARGV[4], name, q, ARGV[7], ARGV[8], ten, by, at, max, pri, ck, tp, xr)
    return 1
  end
  local st = (atNum > NOW) and 'delayed' or 'ready'
  if ten == '\\0' and by == '\\0' and ck == '\\0' and tp == '\\0' and xr == '\\0' then
    -- the common row, no optional field: its arguments straight into the call, no table built
    redis.call('HSET', P .. 'j:' .. id, 'id', id, 'run', ARGV[4], 'name', name, 'q', q, 'input', ARGV[7],
      'key', ARGV[8], 'st', st, 'att', '0', 'max', max, 'pri', pri, 'at', at, 'ca', NOW_TEXT, 'ua', NOW_TEXT)
  else
    local h = { 'id', id, 'run', ARGV[4], 'name', name, 'q', q, 'input', ARGV[7], 'key', ARGV[8],
      'st', st, 'att', '0', 'max', max, 'pri', pri, 'at', at, 'ca', NOW_TEXT, 'ua', NOW_TEXT }
    local optional = { 'ten', ten, 'by', by, 'ck', ck, 'tp', tp, 'xr', xr }
    for i = 1, #optional, 2 do
      if optional[i + 1] ~= '\\0' then
        h[#h + 1] = optional[i]
        h[#h + 1] = optional[i + 1]
      end
    end
    redis.call('HSET', P .. 'j:' .. id, unpack(h))
  end
  redis.call('SPUBLISH', P .. 'wake', q)
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
  return 1
end
`;
