/**
 * Stages many enqueue requests in ONE statement in the CALLER'S transaction (run on the caller's connection): the
 * batch form of `SQL_OUTBOX_STAGE`, row for row the same — `staged_at` from `clock_timestamp()`, evaluated per row as
 * the rows are inserted in array order, and `tx_id` the staging transaction — so the relay publishes the batch in the
 * order given, after whatever the transaction staged before it. One notify on `x_outbox_wake` for the whole batch,
 * and only when no committed, unclaimed row is already waiting (see `SQL_OUTBOX_STAGE`).
 *
 * $1 ids uuid[] (the job ids), $2 run_ids uuid[], $3 names text[], $4 queues text[], $5 requests text[] (each
 * EnqueueRequest as JSON text) — all the same length.
 *
 * Returns one row when it notified `x_outbox_wake`, none when it did not.
 */
export const SQL_OUTBOX_STAGE_MANY = `
with staged as (
  insert into x_outbox (id, run_id, name, queue, request, staged_at, tx_id)
  select r.id, r.run_id, r.name, r.queue, r.request::json, clock_timestamp(), pg_current_xact_id()
  from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[])
    with ordinality as r(id, run_id, name, queue, request, ord)
  order by r.ord
  returning id
)
select pg_notify('x_outbox_wake', '') as notified
where exists (select 1 from staged)
  and not exists (
    select 1 from x_outbox w where w.published_at is null and w.claimed_by is null
  )
`;
