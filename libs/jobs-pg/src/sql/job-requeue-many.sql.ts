/**
 * Re-queues up to $6 finished rows of one state, narrowed by queue, name and tenant, oldest first: each moved row is
 * ready now, attempt 0, its error, progress and finish cleared, its steps kept (`requeueMany`).
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 state (a finished state: the caller refuses a live one),
 * $3 queue, $4 name, $5 tenant_id (each null = any), $6 the most rows to move (`MAX_BULK_ROWS`).
 *
 * Returns one row `(affected, remaining)`: rows moved, and rows a second call could still move.
 *
 * Only rows that CAN move are candidates, so the bound is never spent on a row that stays and `remaining` reaches 0:
 * a row whose idempotency key a live job holds is left, and of several finished rows sharing one key only the oldest is
 * a candidate (no older row of the set shares its key) — moving two would break the live-key unique index. Both are
 * anti-joins (hash joins over the set and the live rows), not a sort of the set by key: over 100,000 dead rows beside
 * 1,000,000 done ones that sort spilled to disk and doubled the statement. The bound is applied to the candidates'
 * ids (a top-N, not a walk of the primary key), then those rows are locked `skip locked`: two operators bulk-requeueing
 * at once split the set rather than wait, and a row a concurrent statement holds is left for the next call.
 * Each queue that got rows is announced once on `x_jobs_wake`.
 */
export const SQL_JOB_REQUEUE_MANY = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
matching as (
  select j.id, j.name, coalesce(j.tenant_id, '') as tenant, j.idempotency_key as key
  from x_jobs j
  where j.state = $2::text
    and j.state in ('done', 'failed', 'dead', 'cancelled')
    and ($3::text is null or j.queue = $3::text)
    and ($4::text is null or j.name = $4::text)
    and ($5::text is null or j.tenant_id = $5::text)
),
candidates as (
  select m.id from matching m
  where not exists (
      select 1 from matching o
      where o.name = m.name and o.tenant = m.tenant and o.key = m.key and o.id < m.id
    )
    and not exists (
      select 1 from x_jobs h
      where h.name = m.name
        and coalesce(h.tenant_id, '') = m.tenant
        and h.idempotency_key = m.key
        and h.state in ('ready', 'delayed', 'running', 'suspended')
    )
),
picked as (
  select j.id from x_jobs j
  where j.id in (select c.id from candidates c order by c.id limit $6::int)
  for update skip locked
),
moved as (
  update x_jobs j set
    state = 'ready',
    run_at = k.now,
    attempt = 0,
    last_error = null,
    progress = null,
    worker_id = null,
    claim = null,
    lease_expires_at = null,
    finished_at = null,
    updated_at = k.now
  from clock k, picked p
  where j.id = p.id and j.state = $2::text
  returning j.queue
),
woke as (
  select pg_notify('x_jobs_wake', q.queue) from (select distinct m.queue from moved m) q
)
select
  (select count(*) from moved)::int as affected,
  ((select count(*) from candidates) - (select count(*) from moved))::int as remaining,
  (select count(*) from woke)::int as announced
`;
