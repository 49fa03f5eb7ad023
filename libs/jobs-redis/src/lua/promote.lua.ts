import { LUA_PRELUDE } from './prelude.lua';

/**
 * Makes a job waiting on its run time due now. A suspended row stays suspended: the claim that takes it early is
 * still a resume.
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] job id.
 *
 * Returns { 'ok', row } (row a flat HGETALL-style array), { 'not-found' } or { 'not-waiting' } (not ready, delayed
 * or suspended with a run time ahead).
 */
export const LUA_PROMOTE = `${LUA_PRELUDE}
local r = load(ARGV[2])
if r == nil then return { 'not-found' } end
local waiting = r.st == 'ready' or r.st == 'delayed' or r.st == 'suspended'
if not waiting or tonumber(r.at) <= NOW then return { 'not-waiting' } end
local st = 'ready'
if r.st == 'suspended' then st = 'suspended' end
move(r, { st = st, at = fmt(NOW), ua = fmt(NOW) })
return { 'ok', flat(r) }
`;
