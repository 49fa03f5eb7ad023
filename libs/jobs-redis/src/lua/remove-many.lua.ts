import { LUA_BULK_COLLECT } from './bulk-collect.lua';
import { LUA_PRELUDE } from './prelude.lua';

/**
 * Deletes up to ARGV[6] rows of one state (and queue, name, tenant), oldest first, with their steps, as
 * {@link LUA_REMOVE} deletes one.
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] state (never 'running': the caller refuses it), ARGV[3] queue,
 * ARGV[4] name, ARGV[5] tenant ('\0' = any), ARGV[6] the most rows to delete (`MAX_BULK_ROWS`).
 *
 * Returns { affected, remaining }: rows deleted, and rows of the filter still there.
 */
export const LUA_REMOVE_MANY = `${LUA_PRELUDE}${LUA_BULK_COLLECT}
if WANT.st == 'running' then return { 0, 0 } end
local ids = collect(false)
local removed = 0
for _, id in ipairs(firstById(ids, tonumber(ARGV[6]))) do
  local r = load(id)
  unindex(r)
  redis.call('DEL', rowKey(r.id), P .. 's:' .. r.id, P .. 'sn:' .. r.id)
  redis.call('ZREM', P .. 'all', r.id)
  removed = removed + 1
end
return { removed, #ids - removed }
`;
