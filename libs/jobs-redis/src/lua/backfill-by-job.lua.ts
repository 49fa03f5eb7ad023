/**
 * The ledger row of the pass a job runs.
 *
 * KEYS[1] the prefix. ARGV[1] job id. State: P..'bf:job', P..'bf:r:'..id.
 *
 * Returns the row as HGETALL's flat field / value list (empty: no row).
 */
export const LUA_BACKFILL_BY_JOB = `
local id = redis.call('HGET', KEYS[1] .. 'bf:job', ARGV[1])
if not id then return {} end
return redis.call('HGETALL', KEYS[1] .. 'bf:r:' .. id)
`;
