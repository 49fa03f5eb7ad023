/**
 * Starts the ledger row of a backfill pass, or answers the row its job already holds: a retry adopts its own row (a
 * failed row runs again under the retry's run id, `startedAt` kept); a completed row is answered as it is.
 *
 * KEYS[1] the prefix. ARGV[1] id (used only when inserting), ARGV[2] name, ARGV[3] checksum, ARGV[4] app version
 * ('' = null, else '=' and the text), ARGV[5] job id, ARGV[6] run id, ARGV[7] now (epoch ms, the pass's clock).
 * State: P..'bf:r:'..id HASH (one row; an absent field is null; numbers as decimal text), P..'bf:job' HASH job id →
 * row id, P..'bf:start' ZSET row ids by startedAt (ties: id order, so a reverse range is newest pass first).
 *
 * Returns the row as HGETALL's flat field / value list.
 */
export const LUA_BACKFILL_BEGIN = `
local P = KEYS[1]
local own = redis.call('HGET', P .. 'bf:job', ARGV[5])
if own then
  local key = P .. 'bf:r:' .. own
  if redis.call('HGET', key, 'status') == 'failed' then
    redis.call('HSET', key, 'status', 'running', 'runId', ARGV[6], 'updatedAt', ARGV[7])
  end
  return redis.call('HGETALL', key)
end
local key = P .. 'bf:r:' .. ARGV[1]
redis.call('HSET', key, 'id', ARGV[1], 'name', ARGV[2], 'checksum', ARGV[3], 'status', 'running',
  'jobId', ARGV[5], 'runId', ARGV[6], 'rows', '0', 'batches', '0', 'startedAt', ARGV[7], 'updatedAt', ARGV[7])
if ARGV[4] ~= '' then redis.call('HSET', key, 'appVersion', string.sub(ARGV[4], 2)) end
redis.call('HSET', P .. 'bf:job', ARGV[5], ARGV[1])
redis.call('ZADD', P .. 'bf:start', ARGV[7], ARGV[1])
return redis.call('HGETALL', key)
`;
