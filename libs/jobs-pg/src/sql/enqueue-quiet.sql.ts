/**
 * The single enqueue's quiet insert: `SQL_ENQUEUE_INSERT` less the wake's sub-select, for a row whose announcement
 * the caller already knows to be settled. It takes `SQL_ENQUEUE_INSERT`'s 15 parameters ($1 now (timestamptz; null =
 * the database's `now()`), $2 id, $3 run_id, $4 name, $5 queue, $6 input (JSON text), $7 idempotency_key,
 * $8 tenant_id, $9 enqueued_by, $10 run_at, $11 max_attempts, $12 priority, $13 concurrency_key, $14 traceparent,
 * $15 cross_tenant_reason) and one more: $16, the first instant (timestamptz) of a WAKE_SLOT_MS (5 ms) slot in which
 * a committed row of the queue, due within WAKE_DUE_WITHIN_MS (1 s) of its creation, was minted (its UUIDv7 id) AND
 * created — or null.
 *
 * It inserts the job only when `SQL_ENQUEUE_INSERT` would announce nothing for it: the row is due more than 1 s after
 * the statement's clock (such a row is never announced), or the statement's clock falls in $16's slot (that slot's
 * committed row is exactly the sibling `SQL_ENQUEUE_INSERT`'s sub-select looks for, so it would answer "already
 * announced"). Otherwise it inserts nothing and answers no row, and the caller sends `SQL_ENQUEUE_INSERT`. The
 * driver passes $16 only for a slot one of its own committed enqueues answered (see `WakeMemo`), and sends this
 * statement only over a shared executor: a row of a transaction still open, or rolled back, announces no slot.
 *
 * No `on conflict`: a row holding the id or the live key fails the statement with a unique violation (23505), in a
 * transaction of its own, and the caller then judges the request with `SQL_ENQUEUE`. Speculative insertion (probing
 * both unique indexes before the insert, then confirming the tuple in a WAL record of its own) is what a created job
 * would otherwise pay for.
 *
 * Answers `created_s`: the row's `created_at` as epoch seconds, a numeric exact to the microsecond (its text is
 * parsed digit by digit, not as a float), from which the caller learns the database clock and which slot the row
 * holds. Why this statement
 * exists: PostgreSQL initialises every node of a plan on each execution, run or not, and the wake's sub-select in
 * `SQL_ENQUEUE_INSERT`'s RETURNING (an index scan, a subquery, a dozen functions) is initialised even when a CASE
 * skips it — about a third of that statement's backend instructions (callgrind: ~713,000 a created job against
 * ~497,000 here).
 */
export const SQL_ENQUEUE_QUIET = `
insert into x_jobs as j (
  id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by, state, attempt,
  max_attempts, priority, run_at, created_at, updated_at, concurrency_key, traceparent,
  cross_tenant_reason
)
select
  $2::uuid, $3::uuid, $4::text, $5::text, $6::json, $7::text, $8::text, $9::text,
  case when $10::timestamptz > coalesce($1::timestamptz, now()) then 'delayed' else 'ready' end, 0,
  $11::int, $12::int, $10::timestamptz, coalesce($1::timestamptz, now()), coalesce($1::timestamptz, now()),
  $13::text, $14::text, $15::text
where $10::timestamptz > coalesce($1::timestamptz, now()) + interval '1 second'
  or (coalesce($1::timestamptz, now()) >= $16::timestamptz
    and coalesce($1::timestamptz, now()) < $16::timestamptz + interval '5 milliseconds')
returning extract(epoch from j.created_at) as created_s
`;
