/**
 * Cancels a LIVE job (ready, delayed, running, suspended). A running attempt loses its claim, so its heartbeat,
 * settle and step writes no longer match; a finished row is left exactly as it ended.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 id, $3 reason (NUL-free; null keeps last_error).
 *
 * Returns the cancelled `x_jobs` row, or none when the job is not live or unknown.
 *
 * The counters move in this statement (`counted`), as they do in the ack and nack: `cancelled` in the job's current
 * 1-minute bucket of `x_job_counters`, only when the row moved, so a count never disagrees with the rows. A cancel
 * adds no duration: the attempt it stops never settled.
 */
export const SQL_JOB_CANCEL = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
settled as (
  update x_jobs j set
    state = 'cancelled',
    last_error = coalesce($3::text, j.last_error),
    worker_id = null,
    claim = null,
    lease_expires_at = null,
    finished_at = k.now,
    updated_at = k.now
  from clock k
  where j.id = $2::uuid
    and j.state in ('ready', 'delayed', 'running', 'suspended')
  returning j.*
),
counted as (
  insert into x_job_counters as c (name, bucket_ms, bucket_start, cancelled)
  select s.name, 60000, to_timestamp(floor(extract(epoch from k.now) / 60) * 60), 1
  from settled s cross join clock k
  on conflict (name, bucket_ms, bucket_start) do update set
    cancelled = c.cancelled + excluded.cancelled
)
select s.* from settled s
`;
