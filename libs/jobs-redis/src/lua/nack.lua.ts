import { LUA_PRELUDE } from './prelude.lua';

/**
 * Hands a run back, fenced on its claim. The outcome is a tagged kind (`NackOptions.kind`), never a set of flags.
 *
 * KEYS[1] the prefix. ARGV[1] clock override. ARGV[2] job id, ARGV[3] worker id, ARGV[4] claim token, ARGV[5] kind:
 * 'retry' (counted attempt, due at the run time: ready, or delayed while it is ahead), 'handBack' (the same, the
 * attempt taken back: the next claim presents the same number), 'park' (suspended until the run time), 'dead'
 * (dead-letter) or 'fail' (failed, outside the dead-letter queue). ARGV[6] run time in epoch ms ('' = now). ARGV[7]
 * '1' to take the attempt back whatever the kind (`nackUncounted()`: a park, a fail whose body never ran), else
 * '0'. ARGV[8] the error text ('\0' = null). ARGV[9] the run's duration in ms.
 *
 * Counted in the job's current 1-minute bucket by this script: `dead` / `failed` for those kinds, `retried` for a
 * counted retry, each with the duration; a park or a hand-back adds nothing.
 *
 * Returns 1 when the row moved, 0 when the claim no longer holds it.
 */
export const LUA_NACK = `${LUA_PRELUDE}
local r = load(ARGV[2])
if not holds(r, ARGV[3], ARGV[4]) then return 0 end
local kind = ARGV[5]
local at = NOW
if ARGV[6] ~= '' then at = tonumber(ARGV[6]) end
local uncounted = ARGV[7] == '1' or kind == 'handBack'
local st
if kind == 'dead' then st = 'dead'
elseif kind == 'fail' then st = 'failed'
elseif kind == 'park' then st = 'suspended'
elseif at > NOW then st = 'delayed'
else st = 'ready' end
local att = tonumber(r.att)
if uncounted then att = math.max(0, att - 1) end
local err = ARGV[8]
if err == '\\0' then err = false end
local fin = false
if st == 'dead' or st == 'failed' then fin = fmt(NOW) end
move(r, { st = st, err = err, at = fmt(at), att = fmt(att), w = false, c = false, le = false, fin = fin,
  ua = fmt(NOW) })
local retried = (st == 'ready' or st == 'delayed') and not uncounted
if st == 'dead' or st == 'failed' or retried then
  countInto(r.name, retried and 'retried' or st, 1)
  countInto(r.name, 'durationMs', tonumber(ARGV[9]))
end
return 1
`;
