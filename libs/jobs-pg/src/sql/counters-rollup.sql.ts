/**
 * Folds counter buckets past their tier into the next one (`rollupCounters()`), at most $2 buckets per call.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 limit (int).
 *
 * The tiers are `COUNTER_TIERS`: 1-minute buckets (bucket_ms 60000) older than 24 h and 5-minute buckets (300000)
 * older than 7 days are deleted (`moved`) and their counts added to the bucket of the next tier that holds their
 * start (`folded`). A 1-minute bucket whose 5-minute target is itself past 7 days goes straight to its hour, so a fold
 * never lands in a bucket this same statement deletes. 1-hour buckets are never folded: the retention sweep drops
 * them after 30 days.
 *
 * Idempotent and safe to run twice at once: the buckets to fold are locked `skip locked`, and a bucket one call
 * deleted is gone for the other, so no count is added twice. Bounded by $2 so a first run after a long pause cannot
 * hold many locks at once; the caller repeats while a call folds $2.
 *
 * Returns `folded`: how many buckets were folded.
 */
export const SQL_COUNTERS_ROLLUP = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
due as (
  select c.name, c.bucket_ms, c.bucket_start
  from x_job_counters c cross join clock k
  where (c.bucket_ms = 60000 and c.bucket_start < k.now - interval '24 hours')
     or (c.bucket_ms = 300000 and c.bucket_start < k.now - interval '7 days')
  order by c.bucket_start
  limit $2::int
  for update of c skip locked
),
moved as (
  delete from x_job_counters c
  using due d
  where c.name = d.name and c.bucket_ms = d.bucket_ms and c.bucket_start = d.bucket_start
  returning c.*
),
targeted as (
  select m.*,
    case
      when m.bucket_ms = 60000
        and to_timestamp(floor(extract(epoch from m.bucket_start) / 300) * 300) >= k.now - interval '7 days'
      then 300
      else 3600
    end as into_s
  from moved m cross join clock k
),
folded as (
  insert into x_job_counters as c (name, bucket_ms, bucket_start, done, retried, failed, dead, cancelled,
    duration_ms)
  select t.name, t.into_s * 1000, to_timestamp(floor(extract(epoch from t.bucket_start) / t.into_s) * t.into_s),
    sum(t.done), sum(t.retried), sum(t.failed), sum(t.dead), sum(t.cancelled), sum(t.duration_ms)
  from targeted t
  group by 1, 2, 3
  order by 1, 2, 3
  on conflict (name, bucket_ms, bucket_start) do update set
    done = c.done + excluded.done,
    retried = c.retried + excluded.retried,
    failed = c.failed + excluded.failed,
    dead = c.dead + excluded.dead,
    cancelled = c.cancelled + excluded.cancelled,
    duration_ms = c.duration_ms + excluded.duration_ms
)
select count(*)::int as folded from moved
`;
