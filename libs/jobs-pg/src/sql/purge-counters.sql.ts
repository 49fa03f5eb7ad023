/**
 * One batch of the retention sweep over counter buckets past their last tier: deletes up to $2 1-hour buckets that
 * started before $1 (timestamptz: now less 30 days), through `x_job_counters_tier_idx`, skipping buckets another
 * session holds. Returns one row per deleted bucket (`name`); fewer than $2 means none is left.
 */
export const SQL_PURGE_COUNTERS = `
delete from x_job_counters c
where (c.name, c.bucket_ms, c.bucket_start) in (
  select v.name, v.bucket_ms, v.bucket_start from x_job_counters v
  where v.bucket_ms = 3600000 and v.bucket_start < $1::timestamptz
  order by v.bucket_start
  limit $2::int
  for update of v skip locked
)
returning c.name
`;
