/**
 * Inserts one job, unless a row already holds its id (live or finished) or a LIVE row holds its
 * `(name, tenant, idempotency key)`.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 id, $3 run_id, $4 name, $5 queue, $6 input (JSON text, stored verbatim as json),
 * $7 idempotency_key, $8 tenant_id, $9 enqueued_by, $10 run_at, $11 max_attempts, $12 priority, $13 concurrency_key,
 * $14 traceparent, $15 cross_tenant_reason.
 *
 * Returns at most one row `(id, run_id, outcome, holder_state)`: outcome `created`; `id` (the id names a row: its
 * ids); or `key` (a live row holds the key: its ids and state). NO row means the insert met a row committed after
 * this statement's snapshot (a concurrent enqueue of the same id or key): run it again, and the next snapshot sees
 * that row. `on conflict do nothing` without a target covers both the primary key and the live-key index, so a race
 * never surfaces as a unique violation.
 *
 * A created row due within WAKE_DUE_WITHIN_MS (1 s) announces its queue on `x_jobs_wake` (the wake), unless another
 * row of that queue, itself due within 1 s of its creation, was minted in the same WAKE_SLOT_MS (250 ms) slot of the
 * statement's clock: that row's notification already woke the listeners, and their woken loop passes again at the
 * floor. A deduped enqueue announces nothing. The sibling check is a primary-key range scan over the UUIDv7 ids of
 * the slot (ids are minted time-ordered), stopping at the first row of the queue — no write, no lock and no extra
 * index; throttling matters because Postgres serialises the commits of every transaction that notified.
 */
export const SQL_ENQUEUE = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
by_id as (
  select j.id, j.run_id from x_jobs j where j.id = $2::uuid
),
by_key as (
  select j.id, j.run_id, j.state from x_jobs j
  where j.name = $4::text
    and coalesce(j.tenant_id, '') = coalesce($8::text, '')
    and j.idempotency_key = $7::text
    and j.state in ('ready', 'delayed', 'running', 'suspended')
),
inserted as (
  insert into x_jobs (
    id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by, state, attempt,
    max_attempts, priority, run_at, created_at, updated_at, concurrency_key, traceparent,
    cross_tenant_reason
  )
  select
    $2::uuid, $3::uuid, $4::text, $5::text, $6::json, $7::text, $8::text, $9::text,
    case when $10::timestamptz > k.now then 'delayed' else 'ready' end, 0,
    $11::int, $12::int, $10::timestamptz, k.now, k.now, $13::text, $14::text, $15::text
  from clock k
  where not exists (select 1 from by_id) and not exists (select 1 from by_key)
  on conflict do nothing
  returning id, run_id, queue, run_at
),
slot as (
  -- the ids a UUIDv7 minter stamps inside the WAKE_SLOT_MS (250 ms) slot the statement's clock is in
  select
    (substr(b.lo, 1, 8) || '-' || substr(b.lo, 9, 4) || '-0000-0000-000000000000')::uuid as lo,
    (substr(b.hi, 1, 8) || '-' || substr(b.hi, 9, 4) || '-0000-0000-000000000000')::uuid as hi
  from (
    select lpad(to_hex(a.ms), 12, '0') as lo, lpad(to_hex(a.ms + 250), 12, '0') as hi
    from (select (floor(extract(epoch from k.now) * 1000 / 250) * 250)::bigint as ms from clock k) a
  ) b
),
woke as (
  select pg_notify('x_jobs_wake', i.queue)
  from inserted i cross join clock k cross join slot w
  where i.run_at <= k.now + interval '1 second'
    and not exists (
      select 1 from x_jobs s
      where s.id >= w.lo and s.id < w.hi
        and s.queue = i.queue
        and s.run_at <= s.created_at + interval '1 second'
    )
)
select i.id, i.run_id, 'created' as outcome, null::text as holder_state
from inserted i cross join (select count(*) from woke) as announced
union all
select b.id, b.run_id, 'id', null from by_id b
union all
select h.id, h.run_id, 'key', h.state from by_key h where not exists (select 1 from by_id)
`;
