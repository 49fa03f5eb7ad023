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
 * a row whose idempotency key a live job holds is left (the live-key index answers the `not exists` per row), and of
 * several finished rows sharing one key only the oldest is a candidate (`distinct on` the key, by id) — moving two
 * would break the live-key unique index. The picked rows are locked `skip locked`, so two operators bulk-requeueing
 * at once split the set rather than wait on each other; a row a concurrent statement holds is left for the next call.
 * Each queue that got rows is announced once on `x_jobs_wake`.
 */
export const SQL_JOB_REQUEUE_MANY = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
candidates as (
  select distinct on (j.name, coalesce(j.tenant_id, ''), j.idempotency_key) j.id
  from x_jobs j
  where j.state = $2::text
    and j.state in ('done', 'failed', 'dead', 'cancelled')
    and ($3::text is null or j.queue = $3::text)
    and ($4::text is null or j.name = $4::text)
    and ($5::text is null or j.tenant_id = $5::text)
    and not exists (
      select 1 from x_jobs h
      where h.name = j.name
        and coalesce(h.tenant_id, '') = coalesce(j.tenant_id, '')
        and h.idempotency_key = j.idempotency_key
        and h.state in ('ready', 'delayed', 'running', 'suspended')
    )
  order by j.name, coalesce(j.tenant_id, ''), j.idempotency_key, j.id
),
picked as (
  select j.id from x_jobs j
  where j.id in (select c.id from candidates c)
  order by j.id
  limit $6::int
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
