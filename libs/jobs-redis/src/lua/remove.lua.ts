import { LUA_PRELUDE } from './prelude.lua';

/**
 * Deletes one job that is not running, with its steps; its id may then be enqueued again as a new row.
 *
 * KEYS[1] the prefix. ARGV[1] clock override (unused). ARGV[2] job id.
 *
 * Returns 'ok', 'not-found' or 'running' (refused).
 */
export const LUA_REMOVE = `${LUA_PRELUDE}
local r = load(ARGV[2])
if r == nil then return 'not-found' end
if r.st == 'running' then return 'running' end
unindex(r)
redis.call('DEL', rowKey(r.id), P .. 's:' .. r.id, P .. 'sn:' .. r.id)
redis.call('ZREM', P .. 'all', r.id)
return 'ok'
`;
