/**
 * Every live worker (`workers()`): rows whose expiry is still ahead of $1 (timestamptz; null = the database's
 * `now()`), by id. Expired rows are skipped here and removed by the retention sweep.
 *
 * Returns every `x_workers` column, the timestamps as epoch ms (float8).
 */
export const SQL_WORKERS = `
select w.id, w.host, w.pid, w.queues, w.slots, w.in_flight,
  floor(extract(epoch from w.started_at) * 1000)::float8 as started_at,
  floor(extract(epoch from w.heartbeat_at) * 1000)::float8 as heartbeat_at,
  floor(extract(epoch from w.expires_at) * 1000)::float8 as expires_at
from x_workers w
where w.expires_at > coalesce($1::timestamptz, now())
order by w.id collate "C"
`;
