import { LUA_PRELUDE } from './prelude.lua';

/**
 * Writes a run's last progress, fenced on its claim.
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] job id, ARGV[3] worker id, ARGV[4] claim token, ARGV[5] the
 * progress as JSON text (already checked and sanitised by the client; stored, never decoded here).
 *
 * Returns 1 when it was written, 0 when the claim no longer holds the row.
 */
export const LUA_PROGRESS = `${LUA_PRELUDE}
local r = load(ARGV[2])
if not holds(r, ARGV[3], ARGV[4]) then return 0 end
redis.call('HSET', rowKey(r.id), 'pg', ARGV[5], 'ua', fmt(NOW))
return 1
`;
