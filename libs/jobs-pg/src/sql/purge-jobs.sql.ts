/**
 * One batch of the retention sweep over finished jobs of ONE state: deletes up to $5 rows of state $1 that finished
 * before $2, in (finished_at, id) order, continuing after the key ($3, $4) the previous batch ended on. Their steps go
 * with them (`x_job_steps` cascades).
 *
 * $1 state (done, failed, dead or cancelled), $2 finished before (timestamptz), $3 after finished_at (timestamptz
 * text, exact to the microsecond; null = from the start), $4 after id (uuid; null = from the start), $5 limit (int).
 *
 * Bounded, and never a long lock: the batch is an ordered range scan of `x_jobs_finished_idx` (state, finished_at,
 * id) that stops at $5, rows another session holds are skipped (`skip locked`: a requeue in flight keeps its row),
 * and the delete reaches each row by primary key. The keyset — each batch starts after the last key of the one before
 * rather than at the first entry — is what keeps a long sweep flat: deleted rows leave index entries that only a
 * vacuum removes, and a batch restarting at the front would step over every one of them again. The state list in
 * the `where` restates the index's predicate so the planner can use it whatever $1 is. A live row is never in the
 * index, and the delete re-checks the state.
 *
 * Returns one row: `removed` (rows deleted), `scanned` (rows the batch took; fewer than $5 means the state is done),
 * and the key to continue after: `last_at` (text, exact) and `last_id`, null when the batch took nothing.
 */
export const SQL_PURGE_JOBS = `
with doomed as (
  select j.id, j.finished_at
  from x_jobs j
  where j.state in ('done', 'failed', 'dead', 'cancelled')
    and j.state = $1::text
    and j.finished_at < $2::timestamptz
    and (j.finished_at, j.id) > (
      coalesce($3::timestamptz, '-infinity'::timestamptz),
      coalesce($4::uuid, '00000000-0000-0000-0000-000000000000'::uuid)
    )
  order by j.finished_at, j.id
  limit $5::int
  for update of j skip locked
),
gone as (
  delete from x_jobs j
  where j.id = any(array(select d.id from doomed d))
    and j.state = $1::text
  returning j.id
)
select
  (select count(*) from gone)::int as removed,
  (select count(*) from doomed)::int as scanned,
  l.finished_at::text as last_at,
  l.id as last_id
from (select 1) as one
left join lateral (
  select d.finished_at, d.id from doomed d order by d.finished_at desc, d.id desc limit 1
) l on true
`;
