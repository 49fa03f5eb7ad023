/**
 * Per job name, its counter buckets starting at or after $1 (epoch ms, float8) summed (`counterTotals(sinceMs)`).
 *
 * Returns `name` and the summed counts as float8, in code-point order of the name.
 */
export const SQL_COUNTER_TOTALS = `
select c.name,
  sum(c.done)::float8 as done, sum(c.retried)::float8 as retried, sum(c.failed)::float8 as failed,
  sum(c.dead)::float8 as dead, sum(c.cancelled)::float8 as cancelled,
  sum(c.duration_ms)::float8 as duration_ms
from x_job_counters c
where c.bucket_start >= to_timestamp($1::float8 / 1000)
group by c.name
order by c.name collate "C"
`;
