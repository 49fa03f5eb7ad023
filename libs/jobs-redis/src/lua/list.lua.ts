import { LUA_PRELUDE } from './prelude.lua';

/**
 * One page of rows, newest first (UUIDv7 ids: id order is creation order), filtered.
 *
 * KEYS[1] the prefix. ARGV[1] clock override (unused). ARGV[2] direction: 'after' (older than the cursor), 'before'
 * (the newer rows nearest the cursor) or '' (from the newest). ARGV[3] the cursor id ('' with no direction). ARGV[4]
 * the page size. ARGV[5..8] filters on queue, name, state and tenant ('\0' = no filter). ARGV[9] / ARGV[10] the
 * lowest and highest id an id prefix spans ('\0' = any). ARGV[11] created at or after, ARGV[12] created before
 * (epoch ms; '\0' = unbounded).
 *
 * Walks P..'all' by lexicographic range from the cursor — narrowed to the prefix's range, so an id prefix reads only
 * the ids it spans — 200 ids at a time, until the page is full.
 *
 * Returns { 'bad-cursor' } when the cursor names no row, else { 'ok', row, row, … } with each row a flat
 * HGETALL-style array, newest first.
 */
export const LUA_LIST = `${LUA_PRELUDE}
local dir, cursor, limit = ARGV[2], ARGV[3], tonumber(ARGV[4])
if dir ~= '' and redis.call('EXISTS', rowKey(cursor)) == 0 then return { 'bad-cursor' } end
local want = { q = ARGV[5], name = ARGV[6], st = ARGV[7], ten = ARGV[8] }
local from, to = tonumber(ARGV[11]), tonumber(ARGV[12])
local function matches(id)
  local v = redis.call('HMGET', rowKey(id), 'q', 'name', 'st', 'ten', 'ca')
  local ca = tonumber(v[5])
  return (want.q == '\\0' or v[1] == want.q) and (want.name == '\\0' or v[2] == want.name)
    and (want.st == '\\0' or v[3] == want.st) and (want.ten == '\\0' or v[4] == want.ten)
    and (from == nil or ca >= from) and (to == nil or ca < to)
end
-- the lexicographic range walked: the cursor's side, narrowed to the id prefix's span
local lo, hi = '-', '+'
if dir == 'before' then lo = '(' .. cursor end
if dir == 'after' then hi = '(' .. cursor end
if ARGV[9] ~= '\\0' and (dir ~= 'before' or strlt(cursor, ARGV[9])) then lo = '[' .. ARGV[9] end
if ARGV[10] ~= '\\0' and (dir ~= 'after' or strlt(ARGV[10], cursor)) then hi = '[' .. ARGV[10] end
local ids = {}
local offset = 0
while #ids < limit do
  local page
  if dir == 'before' then
    page = redis.call('ZRANGEBYLEX', P .. 'all', lo, hi, 'LIMIT', offset, 200)
  else
    page = redis.call('ZREVRANGEBYLEX', P .. 'all', hi, lo, 'LIMIT', offset, 200)
  end
  for _, id in ipairs(page) do
    if matches(id) then
      ids[#ids + 1] = id
      if #ids >= limit then break end
    end
  end
  if #page < 200 then break end
  offset = offset + 200
end
local out = { 'ok' }
local from, to, step = 1, #ids, 1
if dir == 'before' then from, to, step = #ids, 1, -1 end
for i = from, to, step do out[#out + 1] = redis.call('HGETALL', rowKey(ids[i])) end
return out
`;
