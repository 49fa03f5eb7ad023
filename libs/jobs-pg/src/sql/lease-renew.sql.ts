/**
 * Extends the holder's live slot of a key.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 key, $3 holder, $4 ttl in ms.
 *
 * Returns nothing; rowCount 0 when the holder holds no live slot of the key (it expired, or another holder took it).
 */
export const SQL_LEASE_RENEW = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
)
update x_job_leases l set expires_at = k.now + $4::float8 * interval '1 millisecond'
from clock k
where l.key = $2::text and l.holder = $3::text and l.expires_at > k.now
`;
