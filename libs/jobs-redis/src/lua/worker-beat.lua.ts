import { LUA_PRELUDE } from './prelude.lua';

/**
 * Upserts a worker's registry row, live for one visibility timeout from now: one HSET, so an idle worker's presence
 * costs the server as little as a write can.
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] worker id, ARGV[3] visibility timeout ms, ARGV[4] the beat as
 * JSON text (written by the client, never decoded here). Rows live in P..'wk' (HASH id → heartbeatAt .. '|' ..
 * expiresAt .. '|' .. beat JSON, both epoch ms).
 *
 * Returns 1.
 */
export const LUA_WORKER_BEAT = `${LUA_PRELUDE}
redis.call('HSET', P .. 'wk', ARGV[2], fmt(NOW) .. '|' .. fmt(NOW + tonumber(ARGV[3])) .. '|' .. ARGV[4])
return 1
`;
