/**
 * Deletes up to $5 rows of one state, narrowed by queue, name and tenant, oldest first, with their steps (the foreign
 * key cascades) (`removeMany`).
 *
 * $1 state (never `running`: the caller refuses it, and the statement names the state it deletes, so a row a claim
 * took meanwhile is not deleted), $2 queue, $3 name, $4 tenant_id (each null = any), $5 the most rows to delete
 * (`MAX_BULK_ROWS`).
 *
 * Returns one row `(affected, remaining)`: rows deleted, and rows of the filter still there.
 *
 * The bound is applied to the matching ids (a top-N sort, not a walk of the primary key), then those rows are locked
 * `skip locked`: a row another statement holds is left for the next call. `remaining` is
 * counted from this statement's snapshot, minus what it deleted.
 */
export const SQL_JOB_REMOVE_MANY = `
with matching as (
  select j.id from x_jobs j
  where j.state = $1::text
    and j.state <> 'running'
    and ($2::text is null or j.queue = $2::text)
    and ($3::text is null or j.name = $3::text)
    and ($4::text is null or j.tenant_id = $4::text)
),
picked as (
  select j.id from x_jobs j
  where j.id in (select m.id from matching m order by m.id limit $5::int)
  for update skip locked
),
removed as (
  delete from x_jobs j
  using picked p
  where j.id = p.id and j.state = $1::text
  returning j.id
)
select
  (select count(*) from removed)::int as affected,
  ((select count(*) from matching) - (select count(*) from removed))::int as remaining
`;
