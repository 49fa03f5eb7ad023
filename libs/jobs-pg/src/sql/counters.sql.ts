/**
 * One job's counter buckets, every tier, oldest first (`counters({ job, sinceMs })`).
 *
 * $1 job name, $2 since (epoch ms, float8): buckets starting at or after it.
 *
 * Returns `name`, `bucket_ms`, `bucket_start` (epoch ms, float8) and the counts as float8 (a client decodes a float
 * without a bigint's string). Read through the primary key (name, bucket_ms, bucket_start): at most 4,176 rows.
 */
export const SQL_COUNTERS = `
select c.name, c.bucket_ms,
  floor(extract(epoch from c.bucket_start) * 1000)::float8 as bucket_start,
  c.done::float8 as done, c.retried::float8 as retried, c.failed::float8 as failed, c.dead::float8 as dead,
  c.cancelled::float8 as cancelled, c.duration_ms::float8 as duration_ms
from x_job_counters c
where c.name = $1::text
  and c.bucket_start >= to_timestamp($2::float8 / 1000)
order by c.bucket_start, c.bucket_ms
`;
