/**
 * Makes a job waiting on its run time due now: a delayed row, a ready row backing off, or a parked (suspended) one —
 * which stays suspended, so the claim that takes it early is still a resume.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 id.
 *
 * Returns one row: `found` (1 when the job exists), then the promoted `x_jobs` columns (all null when it was not
 * waiting on its run time). A promoted row announces its queue on `x_jobs_wake`, unthrottled.
 */
export const SQL_JOB_PROMOTE = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
moved as (
  update x_jobs j set
    state = case when j.state = 'suspended' then 'suspended' else 'ready' end,
    run_at = k.now,
    updated_at = k.now
  from clock k
  where j.id = $2::uuid
    and j.state in ('ready', 'delayed', 'suspended')
    and j.run_at > k.now
  returning j.*
),
woke as (
  select pg_notify('x_jobs_wake', m.queue) from moved m
)
select (select count(*) from x_jobs f where f.id = $2::uuid)::int as found, m.*
from (select 1) as one
left join moved m on true
cross join (select count(*) from woke) as announced
`;
