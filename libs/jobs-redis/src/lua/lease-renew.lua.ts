import { LUA_PRELUDE } from './prelude.lua';

/**
 * Extends the slot a holder holds on a fleet lease key (see {@link LUA_LEASE_ACQUIRE} for the layout).
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] lease key, ARGV[3] holder, ARGV[4] TTL in ms.
 *
 * Returns 1 when the holder's slot was live and now runs until now + TTL, 0 when it holds none (never held, released,
 * or expired — an expired slot is free, and renewing must not take it back behind a new holder's back).
 */
export const LUA_LEASE_RENEW = `${LUA_PRELUDE}
local slots, exp = P .. 'ls:' .. ARGV[2], P .. 'lx:' .. ARGV[2]
local score = redis.call('ZSCORE', exp, ARGV[3])
if not score or tonumber(score) <= NOW then return 0 end
redis.call('ZADD', exp, fmt(NOW + tonumber(ARGV[4])), ARGV[3])
return 1
`;
