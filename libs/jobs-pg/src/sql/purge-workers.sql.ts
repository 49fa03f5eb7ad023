/**
 * One batch of the retention sweep over `x_workers`: deletes up to $2 rows whose expiry passed before $1
 * (timestamptz) — workers that stopped beating without a clean stop. Returns the deleted ids.
 */
export const SQL_PURGE_WORKERS = `
delete from x_workers w
where w.id = any(array(
  select v.id from x_workers v
  where v.expires_at < $1::timestamptz
  order by v.expires_at
  limit $2::int
  for update of v skip locked
))
returning w.id
`;
