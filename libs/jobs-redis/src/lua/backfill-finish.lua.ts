/**
 * Ends a pass: 'completed' with its completion time, or 'failed' with the error's text. A completed row is never
 * rewritten: it is history, and a rerun writes a new row.
 *
 * KEYS[1] the prefix. ARGV[1] row id, ARGV[2] status, ARGV[3] rows, ARGV[4] batches, ARGV[5] the cursor as JSON text
 * ('' = null), ARGV[6] now (epoch ms), ARGV[7] the error's text ('' = null, else '=' and the text; '' when
 * completed). State: P..'bf:r:'..id.
 *
 * Returns 1 when the row was ended, else 0 (no such row, or already completed).
 */
export const LUA_BACKFILL_FINISH = `
local key = KEYS[1] .. 'bf:r:' .. ARGV[1]
local status = redis.call('HGET', key, 'status')
if not status or status == 'completed' then return 0 end
redis.call('HSET', key, 'status', ARGV[2], 'rows', ARGV[3], 'batches', ARGV[4], 'updatedAt', ARGV[6])
if ARGV[5] == '' then redis.call('HDEL', key, 'lastCursor') else redis.call('HSET', key, 'lastCursor', ARGV[5]) end
if ARGV[2] == 'completed' then
  redis.call('HSET', key, 'completedAt', ARGV[6])
else
  redis.call('HDEL', key, 'completedAt')
  if ARGV[7] == '' then
    redis.call('HDEL', key, 'lastError')
  else
    redis.call('HSET', key, 'lastError', string.sub(ARGV[7], 2))
  end
end
return 1
`;
