import { LUA_PRELUDE } from './prelude.lua';

/**
 * Settles runs done, each fenced on its own claim (one ack is a batch of one).
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] item count n, then n groups of: job id, worker id, claim token,
 * run duration in ms (whole, ≥ 0).
 *
 * An item lands only while its row is running under exactly that worker and claim; it then becomes done, its claim,
 * worker and lease cleared, and is counted (`done`, its duration) in the job's current 1-minute bucket. An item
 * naming a row a previous item already settled answers 0.
 *
 * Returns one 1 (landed) or 0 per item, in order.
 */
export const LUA_ACK = `${LUA_PRELUDE}
DEFERRED = {}
local n = tonumber(ARGV[2])
local out = {}
for i = 0, n - 1 do
  local a = 3 + i * 4
  local r = load(ARGV[a])
  if holds(r, ARGV[a + 1], ARGV[a + 2]) then
    move(r, { st = 'done', w = false, c = false, le = false, fin = fmt(NOW), ua = fmt(NOW) })
    countInto(r.name, 'done', 1)
    countInto(r.name, 'durationMs', tonumber(ARGV[a + 3]))
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
flushCounts()
return out
`;
