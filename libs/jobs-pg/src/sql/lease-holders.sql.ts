/**
 * The live holders of one key, in slot order.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 key.
 *
 * Returns `(holder, slot, expires_at)` rows whose expiry is still ahead.
 */
export const SQL_LEASE_HOLDERS = `
select l.holder, l.slot, l.expires_at
from x_job_leases l
where l.key = $2::text and l.expires_at > coalesce($1::timestamptz, now())
order by l.slot
`;
