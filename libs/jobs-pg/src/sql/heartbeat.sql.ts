/**
 * Renews a run's lease, fenced on its claim.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 id, $3 worker_id, $4 claim, $5 visibility timeout in ms.
 *
 * Returns nothing; rowCount 1 when the lease now ends at now + $5, 0 when the claim no longer holds the row.
 */
export const SQL_HEARTBEAT = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
)
update x_jobs j set
  lease_expires_at = k.now + $5::float8 * interval '1 millisecond',
  updated_at = k.now
from clock k
where j.id = $2::uuid
  and j.state = 'running'
  and j.worker_id = $3::text
  and j.claim = $4::uuid
`;
