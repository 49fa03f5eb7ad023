/**
 * Hands a run back — retry, hand back, park, dead-letter or fail (the kinds of `NackOptions`) — fenced on its claim.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 id, $3 worker_id, $4 claim, $5 target state (from
 * `nackState()`: ready, delayed, suspended, dead or failed), $6 error text (NUL-free), $7 run_at (`nackRunAt()`;
 * null = now), $8 uncounted (`nackUncounted()`; true: the attempt is handed back, attempt - 1), $9 the run's duration
 * in ms (int8, null = 0).
 *
 * A `ready` / `delayed` target is re-decided against the statement's clock (delayed when run_at is still ahead), so
 * one clock decides the stored state. Returns the row's `id` when it moved, nothing when the claim no longer holds it.
 *
 * The counters move in this statement (`counted`), in the job's current 1-minute bucket of `x_job_counters`: `dead`
 * or `failed` for a row that ended so, `retried` for a counted attempt handed back (`ready` / `delayed`, not $8);
 * a suspension and an uncounted hand-back add nothing — counted, every step.sleep would read as a failure.
 */
export const SQL_NACK = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
settled as (
  update x_jobs j set
    state = case
      when $5::text in ('ready', 'delayed') then
        case when coalesce($7::timestamptz, k.now) > k.now then 'delayed' else 'ready' end
      else $5::text
    end,
    last_error = $6::text,
    run_at = coalesce($7::timestamptz, k.now),
    attempt = case when $8::boolean then greatest(j.attempt - 1, 0) else j.attempt end,
    worker_id = null,
    claim = null,
    lease_expires_at = null,
    finished_at = case when $5::text in ('dead', 'failed') then k.now end,
    updated_at = k.now
  from clock k
  where j.id = $2::uuid
    and j.state = 'running'
    and j.worker_id = $3::text
    and j.claim = $4::uuid
  returning j.id, j.name, j.state
),
counted as (
  insert into x_job_counters as c (name, bucket_ms, bucket_start, retried, failed, dead, duration_ms)
  select s.name, 60000, to_timestamp(floor(extract(epoch from k.now) / 60) * 60),
    (s.state in ('ready', 'delayed'))::int, (s.state = 'failed')::int, (s.state = 'dead')::int,
    coalesce($9::int8, 0)
  from settled s cross join clock k
  where s.state in ('dead', 'failed') or (s.state in ('ready', 'delayed') and not $8::boolean)
  on conflict (name, bucket_ms, bucket_start) do update set
    retried = c.retried + excluded.retried,
    failed = c.failed + excluded.failed,
    dead = c.dead + excluded.dead,
    duration_ms = c.duration_ms + excluded.duration_ms
)
select s.id from settled s
`;
