/**
 * Makes up to $6 rows of one state that wait on their run time due now, narrowed by queue, name and tenant, oldest
 * first (`promoteMany`): each becomes ready with `run_at = now`.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 state (`delayed` or `ready`: the caller refuses any other),
 * $3 queue, $4 name, $5 tenant_id (each null = any), $6 the most rows to promote (`MAX_BULK_ROWS`).
 *
 * Returns one row `(affected, remaining)`: rows promoted, and rows of the filter still waiting on their run time.
 *
 * A row already due is not waiting and is not counted. The bound is applied to the waiting ids (a top-N sort), then
 * those rows are locked `skip locked`, so a row a claim holds is left to it; each queue that got due rows is announced once on `x_jobs_wake`.
 */
export const SQL_JOB_PROMOTE_MANY = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
waiting as (
  select j.id from x_jobs j, clock k
  where j.state = $2::text
    and j.state in ('delayed', 'ready')
    and j.run_at > k.now
    and ($3::text is null or j.queue = $3::text)
    and ($4::text is null or j.name = $4::text)
    and ($5::text is null or j.tenant_id = $5::text)
),
picked as (
  select j.id from x_jobs j
  where j.id in (select w.id from waiting w order by w.id limit $6::int)
  for update skip locked
),
moved as (
  update x_jobs j set
    state = 'ready',
    run_at = k.now,
    updated_at = k.now
  from clock k, picked p
  where j.id = p.id and j.state = $2::text and j.run_at > k.now
  returning j.queue
),
woke as (
  select pg_notify('x_jobs_wake', q.queue) from (select distinct m.queue from moved m) q
)
select
  (select count(*) from moved)::int as affected,
  ((select count(*) from waiting) - (select count(*) from moved))::int as remaining,
  (select count(*) from woke)::int as announced
`;
