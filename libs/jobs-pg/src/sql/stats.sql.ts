/**
 * Counts per queue and state, and the age of the oldest due waiting row.
 *
 * $1 now (timestamptz; null = the database's `now()`).
 *
 * Returns one row per queue holding any row, in code-point order of the name: `queue`, one int column per state,
 * and `oldest_ready_ms` (ms since the run_at of the oldest ready or delayed row already due; 0 when none is).
 * It reads every row (finished ones too): an operator / metrics read, not a hot-path statement.
 */
export const SQL_STATS = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
)
select
  j.queue,
  count(*) filter (where j.state = 'ready')::int as ready,
  count(*) filter (where j.state = 'delayed')::int as delayed,
  count(*) filter (where j.state = 'running')::int as running,
  count(*) filter (where j.state = 'suspended')::int as suspended,
  count(*) filter (where j.state = 'done')::int as done,
  count(*) filter (where j.state = 'failed')::int as failed,
  count(*) filter (where j.state = 'dead')::int as dead,
  count(*) filter (where j.state = 'cancelled')::int as cancelled,
  coalesce(
    floor(extract(epoch from k.now - min(j.run_at) filter (
      where j.state in ('ready', 'delayed') and j.run_at <= k.now
    )) * 1000),
    0
  )::float8 as oldest_ready_ms
from x_jobs j
cross join clock k
group by j.queue, k.now
order by j.queue collate "C"
`;
