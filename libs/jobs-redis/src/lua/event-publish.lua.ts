import { LUA_PRELUDE } from './prelude.lua';

/**
 * Publishes one event, stamped with the bus's one clock (the server's TIME, or the test clock override).
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] event name, ARGV[3] payload as JSON text (stored, never decoded
 * here), ARGV[4] tenant ('\0' = none), ARGV[5] TTL in ms, ARGV[6] the event id.
 *
 * Layout: P..'ev:'..seq HASH (id name payload ten at exp), seq from INCR P..'evseq' so events of one millisecond keep
 * their publish order; P..'evn:'..name ZSET seq by publishedAt (members zero-padded to 20 digits: ties sort by seq);
 * P..'evx' ZSET seq by expiry; P..'evnames' SET of names published.
 *
 * Returns { publishedAt, expiresAt } as decimal text.
 */
export const LUA_EVENT_PUBLISH = `${LUA_PRELUDE}
local seq = string.format('%020d', redis.call('INCR', P .. 'evseq'))
local at = fmt(NOW)
local exp = fmt(NOW + tonumber(ARGV[5]))
local fields = { 'id', ARGV[6], 'name', ARGV[2], 'payload', ARGV[3], 'at', at, 'exp', exp }
if ARGV[4] ~= '\\0' then
  fields[#fields + 1] = 'ten'
  fields[#fields + 1] = ARGV[4]
end
redis.call('HSET', P .. 'ev:' .. seq, unpack(fields))
redis.call('ZADD', P .. 'evn:' .. ARGV[2], at, seq)
redis.call('ZADD', P .. 'evx', exp, seq)
redis.call('SADD', P .. 'evnames', ARGV[2])
return { at, exp }
`;
