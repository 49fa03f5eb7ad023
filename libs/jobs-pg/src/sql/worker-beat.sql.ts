/**
 * A worker's registry heartbeat: upserts its `x_workers` row, live until now + the visibility timeout. One statement
 * per worker per heartbeat interval, never per job.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 id, $3 host, $4 pid (int, null), $5 queues text[],
 * $6 slots (json text: { queue: concurrency }), $7 in-flight job ids uuid[] (at most MAX_WORKER_IN_FLIGHT),
 * $8 started at (timestamptz), $9 visibility timeout in ms.
 */
export const SQL_WORKER_BEAT = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
)
insert into x_workers as w (id, host, pid, queues, slots, in_flight, started_at, heartbeat_at, expires_at)
select $2::text, $3::text, $4::int, $5::text[], $6::jsonb, $7::uuid[], $8::timestamptz, k.now,
  k.now + $9::float8 * interval '1 millisecond'
from clock k
on conflict (id) do update set
  host = excluded.host,
  pid = excluded.pid,
  queues = excluded.queues,
  slots = excluded.slots,
  in_flight = excluded.in_flight,
  started_at = excluded.started_at,
  heartbeat_at = excluded.heartbeat_at,
  expires_at = excluded.expires_at
`;
