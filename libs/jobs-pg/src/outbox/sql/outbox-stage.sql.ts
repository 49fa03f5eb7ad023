/**
 * Stages one enqueue request in the CALLER'S transaction (run on the caller's connection), and wakes the relays on
 * commit — but only when no committed, unclaimed row is already waiting: that row's own notify (or the relay's next
 * pass) already covers this one, and a notify per row would serialise every committing transaction on the notify
 * queue. NOTIFY is transactional: a rollback sends nothing, and the wake lands after the row is visible.
 *
 * `staged_at` is `clock_timestamp()`, not `now()`: `now()` is the transaction's start, the same for every row it
 * stages, and ids minted in one millisecond are not in mint order — so it is `staged_at` that keeps one
 * transaction's rows in the order they were staged. `tx_id` names the transaction (migration 0002).
 *
 * $1 id (the job id), $2 run_id, $3 name, $4 queue, $5 request (the EnqueueRequest as JSON text).
 *
 * Returns one row when it notified `x_outbox_wake`, none when it did not.
 */
export const SQL_OUTBOX_STAGE = `
with staged as (
  insert into x_outbox (id, run_id, name, queue, request, staged_at, tx_id)
  values ($1::uuid, $2::uuid, $3::text, $4::text, $5::json, clock_timestamp(), pg_current_xact_id())
  returning id
)
select pg_notify('x_outbox_wake', '') as notified
from staged s
where not exists (
  select 1 from x_outbox w where w.published_at is null and w.claimed_by is null
)
`;
