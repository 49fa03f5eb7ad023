import { LUA_PRELUDE } from './prelude.lua';

/**
 * Stores one completed step of a run, fenced on its claim.
 *
 * KEYS[1] the prefix. ARGV[1] clock override (unused: the record carries its own times). ARGV[2] job id, ARGV[3]
 * worker id, ARGV[4] claim token, ARGV[5] step name, ARGV[6] the step record as JSON text.
 *
 * Steps live in P..'s:'..id (LIST of records, completion order) and P..'sn:'..id (HASH name → its list index).
 * Saving a name already stored writes nothing and answers 1: only a retry of a write that landed saves a name twice,
 * and the first output is the one a replay has seen.
 *
 * Returns 1 when the step is stored (now or before), 0 when the claim no longer holds the row.
 */
export const LUA_STEP_SAVE = `${LUA_PRELUDE}
local r = load(ARGV[2])
if not holds(r, ARGV[3], ARGV[4]) then return 0 end
local names = P .. 'sn:' .. r.id
if redis.call('HEXISTS', names, ARGV[5]) == 1 then return 1 end
local len = redis.call('RPUSH', P .. 's:' .. r.id, ARGV[6])
redis.call('HSET', names, ARGV[5], fmt(len - 1))
return 1
`;
