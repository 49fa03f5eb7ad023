/**
 * Inserts one job, unless a row already holds its id (live or finished) or a LIVE row holds its
 * `(name, tenant, idempotency key)`.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 id, $3 run_id, $4 name, $5 queue, $6 input (JSON text),
 * $7 idempotency_key, $8 tenant_id, $9 enqueued_by, $10 run_at, $11 max_attempts, $12 priority, $13 concurrency_key,
 * $14 traceparent.
 *
 * Returns at most one row `(id, run_id, outcome, holder_state)`: outcome `created`; `id` (the id names a row: its
 * ids); or `key` (a live row holds the key: its ids and state). NO row means the insert met a row committed after
 * this statement's snapshot (a concurrent enqueue of the same id or key): run it again, and the next snapshot sees
 * that row. `on conflict do nothing` without a target covers both the primary key and the live-key index, so a race
 * never surfaces as a unique violation.
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
    max_attempts, priority, run_at, created_at, updated_at, concurrency_key, traceparent
  )
  select
    $2::uuid, $3::uuid, $4::text, $5::text, $6::jsonb, $7::text, $8::text, $9::text,
    case when $10::timestamptz > k.now then 'delayed' else 'ready' end, 0,
    $11::int, $12::int, $10::timestamptz, k.now, k.now, $13::text, $14::text
  from clock k
  where not exists (select 1 from by_id) and not exists (select 1 from by_key)
  on conflict do nothing
  returning id, run_id
)
select i.id, i.run_id, 'created' as outcome, null::text as holder_state from inserted i
union all
select b.id, b.run_id, 'id', null from by_id b
union all
select h.id, h.run_id, 'key', h.state from by_key h where not exists (select 1 from by_id)
`;
