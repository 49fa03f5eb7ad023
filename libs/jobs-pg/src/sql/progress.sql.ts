/**
 * Stores a run's last progress, fenced on its claim.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 id, $3 worker_id, $4 claim, $5 progress (JSON text
 * `{ done, total, note? }`, NUL-free).
 *
 * Returns nothing; rowCount 1 when it was stored, 0 when the claim no longer holds the row.
 */
export const SQL_PROGRESS = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
)
update x_jobs j set
  progress = $5::jsonb,
  updated_at = k.now
from clock k
where j.id = $2::uuid
  and j.state = 'running'
  and j.worker_id = $3::text
  and j.claim = $4::uuid
`;
