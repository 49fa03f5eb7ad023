import { LUA_PRELUDE } from './prelude.lua';

/**
 * Upserts a worker's registry row, live for one visibility timeout from now.
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] worker id, ARGV[3] visibility timeout ms, ARGV[4] the beat as
 * JSON text (written by the client, never decoded here). Rows live in P..'wk' (HASH id → beat JSON), P..'wkat'
 * (HASH id → last beat, epoch ms) and P..'wkx' (ZSET id by expiry).
 *
 * Returns 1.
 */
export const LUA_WORKER_BEAT = `${LUA_PRELUDE}
redis.call('HSET', P .. 'wk', ARGV[2], ARGV[4])
redis.call('HSET', P .. 'wkat', ARGV[2], fmt(NOW))
redis.call('ZADD', P .. 'wkx', fmt(NOW + tonumber(ARGV[3])), ARGV[2])
return 1
`;
