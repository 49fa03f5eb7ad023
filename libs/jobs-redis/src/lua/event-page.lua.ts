/**
 * Reads one page of a name's events for a lookup, by value: the first page from `since`, every later page from just
 * after the last event the page before it read, found by its place (score, member) even when a purge deleted it
 * meanwhile, so a purge between two pages neither ends the walk nor skips an event (an offset would shift by as many
 * events as were deleted before it). See {@link LUA_EVENT_PUBLISH} for the layout.
 *
 * KEYS[1] the prefix. ARGV[1] clock override (unused: a page reads no clock). ARGV[2] the event name (its index is
 * P..'evn:'..name), ARGV[3] since (ms, the first page's lower bound), ARGV[4] the cursor's score ('' on the first
 * page), ARGV[5] the cursor's member (a seq), ARGV[6] the page size.
 *
 * Returns a flat array: member, score, member, score... in (score, member) order, at most page size of them.
 */
export const LUA_EVENT_PAGE = `
local key, n = KEYS[1] .. 'evn:' .. ARGV[2], tonumber(ARGV[6])
if ARGV[4] == '' then
  return redis.call('ZRANGEBYSCORE', key, ARGV[3], '+inf', 'WITHSCORES', 'LIMIT', 0, n)
end
local at = redis.call('ZRANK', key, ARGV[5])
if not at then
  -- the cursor was deleted: its place is after every event before it in (score, member) order; members are seqs
  -- zero-padded to one length, so their string order is the order of the ties of one score
  at = redis.call('ZCOUNT', key, '-inf', '(' .. ARGV[4]) - 1
  for _, seq in ipairs(redis.call('ZRANGEBYSCORE', key, ARGV[4], ARGV[4])) do
    if seq < ARGV[5] then at = at + 1 end
  end
end
return redis.call('ZRANGE', key, at + 1, at + n, 'WITHSCORES')
`;
