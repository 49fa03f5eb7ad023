import { LUA_PRELUDE } from './prelude.lua';

/**
 * Moves a task's watermark without firing, compare-and-set: arms a task that has none, or passes occurrences that
 * will not fire (see {@link LUA_SCHEDULER_FIRE} for the layout).
 *
 * KEYS[1] the prefix. ARGV[1] clock override (unused). ARGV[2] task, ARGV[3] the new watermark, ARGV[4] the
 * watermark it was planned from ('' = the task must have none: arming).
 *
 * Returns 1 when it moved, 0 when the stored watermark was not the planned one.
 */
export const LUA_SCHEDULER_SKIP = `${LUA_PRELUDE}
local stored = redis.call('HGET', P .. 'sched:wm', ARGV[2])
if ARGV[4] == '' then
  if stored then return 0 end
elseif not stored or tonumber(stored) ~= tonumber(ARGV[4]) then
  return 0
end
redis.call('HSET', P .. 'sched:wm', ARGV[2], fmt(tonumber(ARGV[3])))
return 1
`;
