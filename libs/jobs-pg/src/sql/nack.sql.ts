/**
 * Hands a run back — retry, park, dead-letter or fail — fenced on its claim.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 id, $3 worker_id, $4 claim, $5 target state (from
 * `nackState()`: ready, delayed, suspended, dead or failed), $6 error text (NUL-free), $7 run_at (null = now),
 * $8 uncounted (true: the attempt is handed back, attempt - 1).
 *
 * A `ready` / `delayed` target is re-decided against the statement's clock (delayed when run_at is still ahead), so
 * one clock decides the stored state. Returns nothing; rowCount 1 when the row moved, 0 when the claim no longer
 * holds it.
 */
export const SQL_NACK = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
)
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
`;
