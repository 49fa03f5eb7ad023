import { LUA_ENQUEUE_CORE, LUA_ENQUEUE_PLAN } from './enqueue-core.lua';
import { LUA_ENQUEUE_ONE } from './enqueue-one.lua';
import { LUA_PRELUDE_CLOCK, LUA_PRELUDE_HELPERS } from './prelude-core.lua';

/**
 * Inserts a batch of rows (one request is a batch of one), all or nothing.
 *
 * KEYS[1] the prefix. ARGV[1] clock override ('' = server TIME). ARGV[2] request count n, then n groups of
 * `ENQUEUE_FIELDS` (enqueue-core): id, runId, name, queue, input (JSON text), idempotencyKey, tenant ('\0' = null; a null
 * tenant and '' are one tenant in the live key), enqueuedBy ('\0' = null), runAt, maxAttempts, priority, onConflict ('dedupe' |
 * 'error'), concurrencyKey ('\0' = null), traceparent ('\0' = null), crossTenantReason ('\0' = null).
 * Or, for one request whose tenant, enqueuedBy, concurrencyKey, traceparent and crossTenantReason are null and whose
 * onConflict is 'dedupe': ARGV[2] `ENQUEUE_ONE_PLAIN` ('1p'), then id, runId, name, queue, input, idempotencyKey, runAt,
 * maxAttempts, priority.
 *
 * Each request in order: an id already naming a row (live or finished, or earlier in the batch) answers that row;
 * else a live row holding (name, tenant, key) — stored or earlier in the batch — answers that row, unless
 * onConflict is 'error'; else the row is inserted (state delayed when runAt is after now, else ready). Decisions are
 * made for the whole batch before anything is written, so a conflict writes nothing. A batch of one decides and writes
 * in one go, on a straight path run before any helper is built ({@link LUA_ENQUEUE_ONE}: its id taken by ZADD NX on
 * P..'all' and its live key by HSETNX; a held key takes the id back out, so a dedupe or conflict writes nothing). A
 * batch of one inserted fresh and due now is handed to an idle worker registered for its queue when it would be the
 * next row claimed there (`LUA_HAND_OFF`): claimed for that worker in this script and pushed onto its list instead of
 * announced.
 *
 * Returns { 'ok', id1, run1, deduped1 ('1'|'0'), … } or { 'conflict', index (1-based), holder id, holder run id,
 * holder state } when a request under onConflict 'error' met a live key — except a batch of one inserted fresh, which
 * answers the integer 1 (the request's own ids, not deduped: the client has them, and a one-integer reply is the
 * cheapest one to write and to read).
 */
export const LUA_ENQUEUE = `${LUA_PRELUDE_CLOCK}${LUA_ENQUEUE_ONE}${LUA_PRELUDE_HELPERS}${LUA_ENQUEUE_CORE}${LUA_ENQUEUE_PLAN}
local out, fresh = planEnqueue(tonumber(ARGV[2]), 2)
if out[1] == 'conflict' then return out end
insertRows(fresh)
return out
`;
