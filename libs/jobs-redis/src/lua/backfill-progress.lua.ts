/**
 * Records how far a running pass got, after each page; a finished row is left as it is (a late write of an attempt
 * that lost its lease must not move a completed report backwards).
 *
 * KEYS[1] the prefix. ARGV[1] row id, ARGV[2] rows, ARGV[3] batches, ARGV[4] the cursor as JSON text ('' = null),
 * ARGV[5] now (epoch ms). State: P..'bf:r:'..id (see backfill-begin).
 *
 * Returns 1 when the row was running and is updated, else 0.
 */
export const LUA_BACKFILL_PROGRESS = `
local key = KEYS[1] .. 'bf:r:' .. ARGV[1]
if redis.call('HGET', key, 'status') ~= 'running' then return 0 end
redis.call('HSET', key, 'rows', ARGV[2], 'batches', ARGV[3], 'updatedAt', ARGV[5])
if ARGV[4] == '' then redis.call('HDEL', key, 'lastCursor') else redis.call('HSET', key, 'lastCursor', ARGV[4]) end
return 1
`;
