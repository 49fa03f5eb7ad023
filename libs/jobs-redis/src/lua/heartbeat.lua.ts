import { LUA_PRELUDE } from './prelude.lua';

/**
 * Renews a run's lease, fenced on its claim.
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] job id, ARGV[3] worker id, ARGV[4] claim token, ARGV[5] the
 * visibility timeout in ms: the lease runs until now + it.
 *
 * Returns 1 when the lease moved, 0 when the claim no longer holds the row.
 */
export const LUA_HEARTBEAT = `${LUA_PRELUDE}
local r = load(ARGV[2])
if not holds(r, ARGV[3], ARGV[4]) then return 0 end
move(r, { le = fmt(NOW + tonumber(ARGV[5])), ua = fmt(NOW) })
return 1
`;
