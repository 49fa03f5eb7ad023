/**
 * Re-queues ONE finished job (done, failed, dead, cancelled) as a fresh run: ready now, attempt 0, error and progress
 * cleared. With a step name, that step and every step stored after it are dropped in the same statement. Nothing
 * moves when the job is live or a live job holds its idempotency key.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 id, $3 from_step (null = keep every step).
 *
 * Returns no row when the job is unknown; otherwise one row: `prior_state` (the state found), `holder_id` /
 * `holder_state` (a live job holding the key, if any), then the moved `x_jobs` columns (all null when nothing moved).
 * A moved row announces its queue on `x_jobs_wake`, unthrottled (an operator's requeue is rare).
 */
export const SQL_JOB_REQUEUE = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
target as (
  select j.id, j.state, j.name, j.tenant_id, j.idempotency_key from x_jobs j where j.id = $2::uuid
),
holder as (
  select h.id, h.state
  from x_jobs h
  join target t
    on h.name = t.name
    and coalesce(h.tenant_id, '') = coalesce(t.tenant_id, '')
    and h.idempotency_key = t.idempotency_key
  where h.state in ('ready', 'delayed', 'running', 'suspended') and h.id <> t.id
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
  from clock k
  where j.id = $2::uuid
    and j.state in ('done', 'failed', 'dead', 'cancelled')
    and not exists (select 1 from holder)
  returning j.*
),
woke as (
  select pg_notify('x_jobs_wake', m.queue) from moved m
),
dropped as (
  delete from x_job_steps s
  where s.job_id in (select m.id from moved m)
    and s.seq >= (select f.seq from x_job_steps f where f.job_id = $2::uuid and f.name = $3::text)
)
select
  t.state as prior_state,
  (select h.id from holder h limit 1) as holder_id,
  (select h.state from holder h limit 1) as holder_state,
  m.*
from target t
left join moved m on m.id = t.id
cross join (select count(*) from woke) as announced
`;
