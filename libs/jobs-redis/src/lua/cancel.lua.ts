import { LUA_PRELUDE } from './prelude.lua';

/**
 * Stops a live job: cancelled, its claim, worker and lease cleared (so the running attempt's writes are fenced out),
 * its live key freed, counted `cancelled` in the job's current 1-minute bucket.
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] job id. ARGV[3] the reason, stored as the last error ('\0' =
 * keep the last error as it is).
 *
 * Returns the cancelled row as a flat HGETALL-style array, or an empty array when the row is unknown or not live.
 */
export const LUA_CANCEL = `${LUA_PRELUDE}
local r = load(ARGV[2])
if r == nil or not LIVE[r.st] then return {} end
local set = { st = 'cancelled', w = false, c = false, le = false, fin = fmt(NOW), ua = fmt(NOW) }
if ARGV[3] ~= '\\0' then set.err = ARGV[3] end
move(r, set)
countInto(r.name, 'cancelled', 1)
return flat(r)
`;
