import { LUA_ENQUEUE_CORE, LUA_ENQUEUE_PLAN } from './enqueue-core.lua';
import { LUA_PRELUDE } from './prelude.lua';

/**
 * Fires one scheduled occurrence as ONE atomic step: enqueues its rows, moves the task's watermark and records the
 * fire — or, when the stored watermark is not the one the fire was planned from, does nothing at all.
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] task, ARGV[3] occurrence (epoch ms), ARGV[4] the new watermark,
 * ARGV[5] the watermark the fire was planned from, ARGV[6] request count n, then n requests laid out as
 * {@link LUA_ENQUEUE}'s. State: P..'sched:wm' (HASH task → watermark), P..'sched:fire' (HASH task → occurrence|firedAt).
 *
 * Returns { 'refused' } (nothing written), { 'conflict', … } as {@link LUA_ENQUEUE} (nothing written), or
 * { 'ok', id, run, deduped, … } as {@link LUA_ENQUEUE}.
 */
export const LUA_SCHEDULER_FIRE = `${LUA_PRELUDE}${LUA_ENQUEUE_CORE}${LUA_ENQUEUE_PLAN}
local stored = redis.call('HGET', P .. 'sched:wm', ARGV[2])
if not stored or tonumber(stored) ~= tonumber(ARGV[5]) then return { 'refused' } end
local out, fresh = planEnqueue(tonumber(ARGV[6]), 6)
if out[1] == 'conflict' then return out end
insertRows(fresh)
redis.call('HSET', P .. 'sched:wm', ARGV[2], fmt(tonumber(ARGV[4])))
redis.call('HSET', P .. 'sched:fire', ARGV[2], fmt(tonumber(ARGV[3])) .. '|' .. fmt(NOW))
return out
`;
