/**
 * Counts per queue and state, and the age of the oldest due waiting row — without reading the finished rows a busy
 * queue piles up.
 *
 * $1 now (timestamptz; null = the database's `now()`).
 *
 * Returns one row per queue holding any row, in code-point order of the name: `queue`, one int column per state,
 * `oldest_ready_ms` (ms since the run_at of the oldest ready or delayed row already due; 0 when none is), and `names`
 * (jsonb: one `{ name, ready, delayed, running, suspended, oldestReadyMs }` per job name holding live rows of the
 * queue, in code-point order — what makes a name no worker serves visible: its rows wait and its age grows).
 *
 * - ready, delayed, suspended: an index-only scan of the claim index `x_jobs_claim_name_idx` (queue, name, priority,
 *   run_at, id) include (state) (migration 0014); failed, dead: of `x_jobs_buried_count_idx` (queue, state) (migration
 *   0011) — both partial over exactly those states, so the count reads index pages, not one heap page per counted
 *   row (a heap visit only for a page the visibility map does not yet know all-visible); running: under
 *   `x_jobs_lease_idx`'s predicate. Each is a scan of live (or dead-lettered) rows only, exact; the live ones are
 *   counted per (queue, name) and summed per queue.
 * - done, cancelled: no index holds them (one would be written by every ack). They are counted over a
 *   `tablesample system` of at most 1,000 heap pages (8 MB) and scaled up: exact while the table fits in that
 *   (100 % sampled — tens of thousands of rows), an estimate past it, at a bounded cost however many finished rows
 *   the table holds. A queue with only finished rows may be missed by the sample of a large table. The sample is
 *   `repeatable`: each read takes the same pages while the table keeps its size, so a poll re-reads pages already
 *   cached rather than up to 1,000 random ones from disk (measured at 1,000,000 rows: the random sample read ~250 of
 *   its pages from outside shared buffers every call), and the estimate does not jitter from one poll to the next.
 */
export const SQL_STATS = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
sample as (
  select least(100, 100.0 * 1000 / greatest(1, pg_relation_size('x_jobs') / current_setting('block_size')::int))::real as pct
),
waiting_names as (
  select
    j.queue,
    j.name,
    count(*) filter (where j.state = 'ready') as ready,
    count(*) filter (where j.state = 'delayed') as delayed,
    count(*) filter (where j.state = 'suspended') as suspended,
    min(j.run_at) filter (where j.state in ('ready', 'delayed') and j.run_at <= k.now) as oldest_due
  from x_jobs j cross join clock k
  where j.state in ('ready', 'delayed', 'suspended')
  group by j.queue, j.name
),
running_names as (
  select j.queue, j.name, count(*) as running
  from x_jobs j
  where j.state = 'running'
  group by j.queue, j.name
),
waiting as (
  select w.queue, sum(w.ready) as ready, sum(w.delayed) as delayed, sum(w.suspended) as suspended,
    min(w.oldest_due) as oldest_due
  from waiting_names w
  group by w.queue
),
running as (
  select r.queue, sum(r.running) as running
  from running_names r
  group by r.queue
),
names as (
  select coalesce(w.queue, r.queue) as queue,
    jsonb_agg(jsonb_build_object(
      'name', coalesce(w.name, r.name),
      'ready', coalesce(w.ready, 0),
      'delayed', coalesce(w.delayed, 0),
      'running', coalesce(r.running, 0),
      'suspended', coalesce(w.suspended, 0),
      'oldestReadyMs', coalesce(floor(extract(epoch from k.now - w.oldest_due) * 1000), 0)
    ) order by coalesce(w.name, r.name) collate "C") as names
  from waiting_names w
  full join running_names r on r.queue = w.queue and r.name = w.name
  cross join clock k
  group by coalesce(w.queue, r.queue)
),
buried as (
  select
    j.queue,
    count(*) filter (where j.state = 'failed') as failed,
    count(*) filter (where j.state = 'dead') as dead
  from x_jobs j
  where j.state in ('dead', 'failed')
  group by j.queue
),
finished as (
  select
    j.queue,
    round(count(*) filter (where j.state = 'done') * 100.0 / (select s.pct from sample s)) as done,
    round(count(*) filter (where j.state = 'cancelled') * 100.0 / (select s.pct from sample s)) as cancelled
  from x_jobs j tablesample system ((select s.pct from sample s)) repeatable (0)
  where j.state in ('done', 'cancelled')
  group by j.queue
),
queues as (
  select w.queue from waiting w
  union select r.queue from running r
  union select b.queue from buried b
  union select f.queue from finished f
)
select
  q.queue,
  coalesce(w.ready, 0)::int as ready,
  coalesce(w.delayed, 0)::int as delayed,
  coalesce(r.running, 0)::int as running,
  coalesce(w.suspended, 0)::int as suspended,
  coalesce(f.done, 0)::int as done,
  coalesce(b.failed, 0)::int as failed,
  coalesce(b.dead, 0)::int as dead,
  coalesce(f.cancelled, 0)::int as cancelled,
  coalesce(floor(extract(epoch from k.now - w.oldest_due) * 1000), 0)::float8 as oldest_ready_ms,
  coalesce(n.names, '[]'::jsonb) as names
from queues q
cross join clock k
left join waiting w on w.queue = q.queue
left join running r on r.queue = q.queue
left join buried b on b.queue = q.queue
left join finished f on f.queue = q.queue
left join names n on n.queue = q.queue
order by q.queue collate "C"
`;
