/**
 * Stores one completed step, fenced on the run's claim. A name already stored for the job keeps its first output
 * (the second save can only be a retry of a write that landed).
 *
 * $1 job id, $2 worker_id, $3 claim, $4 step name, $5 output (JSON text, stored verbatim as json; null = the step
 * returned nothing), $6 attempt, $7 started_at, $8 completed_at.
 *
 * Returns one row `held`: 1 when the claim holds the row (the step is stored, now or before), 0 when it does not and
 * nothing was written. The job row is locked `for share` for the statement, so a cancel or a re-claim either lands
 * before the check (and the write is refused) or waits for it.
 */
export const SQL_STEPS_SAVE = `
with fence as (
  select j.id from x_jobs j
  where j.id = $1::uuid
    and j.state = 'running'
    and j.worker_id = $2::text
    and j.claim = $3::uuid
  for share
),
saved as (
  insert into x_job_steps (job_id, name, output, attempt, started_at, completed_at)
  select f.id, $4::text, $5::json, $6::int, $7::timestamptz, $8::timestamptz
  from fence f
  on conflict (job_id, name) do nothing
  returning 1
)
select count(*)::int as held from fence
`;
