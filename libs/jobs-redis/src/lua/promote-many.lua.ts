import { LUA_BULK_COLLECT } from './bulk-collect.lua';
import { LUA_PRELUDE } from './prelude.lua';

/**
 * Makes up to ARGV[6] rows of one state that wait on their run time due now (and queue, name, tenant), oldest
 * first, as {@link LUA_PROMOTE} promotes one: ready, run time NOW.
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] state ('delayed' or 'ready': the caller refuses any other),
 * ARGV[3] queue, ARGV[4] name, ARGV[5] tenant ('\0' = any), ARGV[6] the most rows to promote (`MAX_BULK_ROWS`).
 *
 * Only rows whose run time is still ahead are candidates (a queue's delayed set past NOW); a row already due is not
 * waiting and is not counted.
 *
 * Returns { affected, remaining }: rows promoted, and rows of the filter still waiting.
 */
export const LUA_PROMOTE_MANY = `${LUA_PRELUDE}${LUA_BULK_COLLECT}
local ids = collect(true)
local moved = 0
for _, id in ipairs(firstById(ids, tonumber(ARGV[6]))) do
  move(load(id), { st = 'ready', at = fmt(NOW), ua = fmt(NOW) })
  moved = moved + 1
end
return { moved, #ids - moved }
`;
