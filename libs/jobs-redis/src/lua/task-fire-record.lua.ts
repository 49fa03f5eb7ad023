import { LUA_PRELUDE } from './prelude.lua';

/**
 * Records the last fire of a task that went through `driver.enqueue` (`recordTaskFire`), stamped on the script's
 * clock; the Redis scheduler state records its own fires in {@link LUA_SCHEDULER_FIRE} instead. The watermark is not
 * touched.
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] task, ARGV[3] the occurrence that fired (epoch ms). State:
 * P..'sched:fire' (HASH task → occurrence|firedAt).
 *
 * Returns 1.
 */
export const LUA_TASK_FIRE_RECORD = `${LUA_PRELUDE}
redis.call('HSET', P .. 'sched:fire', ARGV[2], fmt(tonumber(ARGV[3])) .. '|' .. fmt(NOW))
return 1
`;
