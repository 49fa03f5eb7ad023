/**
 * Deletes one job that is not running, with its steps (the foreign key cascades).
 *
 * $1 id.
 *
 * Returns one row `(removed, state)`: removed 1 when it was deleted; otherwise `state` is the row's state as this
 * statement found it — null when no such job exists, `running` (or a state a concurrent claim just left) when it
 * could not be removed.
 */
export const SQL_JOB_REMOVE = `
with removed as (
  delete from x_jobs j
  where j.id = $1::uuid and j.state <> 'running'
  returning j.id
)
select
  (select count(*) from removed)::int as removed,
  (select j.state from x_jobs j where j.id = $1::uuid) as state
`;
