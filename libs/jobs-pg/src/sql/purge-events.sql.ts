/**
 * One batch of the retention sweep over the stored event bus: deletes up to $1 events whose expiry passed on the
 * DATABASE's clock — the bus's one clock, which stamped them — oldest expiry first, through `x_job_events_expires_idx`,
 * skipping rows another session holds. Returns the deleted ids; fewer than $1 means none is left.
 */
export const SQL_PURGE_EVENTS = `
delete from x_job_events e
where e.id = any(array(
  select v.id from x_job_events v
  where v.expires_at < now()
  order by v.expires_at
  limit $1::int
  for update of v skip locked
))
returning e.id
`;
