/**
 * A standalone rescue of lapsed leases (`JobDriver.rescue`), in ONE statement: a worker's own rescue rides its claim
 * (`SQL_CLAIM`'s two rescue arms) at no statement of its own; this one is for operators and tests.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 visibility timeout in ms, $3 drop_names text[] (jobs
 * declaring `retry.deadLetter: false`), $4 queues text[] and $5 names text[] (same length: the (queue, name) pairs
 * served — a null name: every name of that queue), $6 queues text[] (every slot's queue, as `SQL_CLAIM`'s $3: a queue
 * here with no pair in $4/$5 serves no name, and its final attempts are still buried a visibility timeout later).
 *
 * Per unpaused queue, at most 1,000 running rows whose lease lapsed, oldest lease first, locked `skip locked` (a
 * concurrent claim that is re-taking one keeps it). Of those, a row on its final attempt is buried exactly as
 * `SQL_CLAIM`'s `exhausted` arm buries it — a served name's at once, any other's once its lease lapsed `$2` ms more —
 * `dead` (or `failed` when its name is in $3) with LEASE_LAPSED_FINAL_ATTEMPT, and counted in its name's current
 * 1-minute bucket of `x_job_counters`; a row with attempts left, of a served name only, goes back to `ready` with its
 * attempt, run time and priority kept, so the next claim takes it in claim order with attempt + 1, as `SQL_CLAIM`'s
 * `lapsed` arm would have. Each update re-checks `state = 'running'`.
 *
 * Returns the buried rows, every `x_jobs` column with the timestamps as epoch milliseconds (as `SQL_CLAIM` does).
 */
export const SQL_RESCUE = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
served as (
  select q.queue, coalesce(bool_or(n.queue is not null and n.name is null), false) as any_name,
    array_agg(n.name) filter (where n.name is not null) as names
  from (select distinct u.queue from unnest($6::text[]) as u(queue)) q
  left join unnest($4::text[], $5::text[]) as n(queue, name) on n.queue = q.queue
  where not exists (select 1 from x_queue_pauses p where p.queue = q.queue)
  group by q.queue
),
lapsed as (
  select l.id, l.final
  from served s
  cross join lateral (
    select j.id, j.attempt >= j.max_attempts as final
    from x_jobs j cross join clock k
    where j.queue = s.queue
      and j.state = 'running'
      and j.lease_expires_at <= k.now
      and (
        s.any_name
        or j.name = any(s.names)
        or (j.attempt >= j.max_attempts and j.lease_expires_at <= k.now - $2::float8 * interval '1 millisecond')
      )
    order by j.lease_expires_at
    limit 1000
    for update of j skip locked
  ) l
),
buried as (
  update x_jobs j set
    state = case when j.name = any($3::text[]) then 'failed' else 'dead' end,
    last_error = 'LEASE_LAPSED_FINAL_ATTEMPT',
    worker_id = null,
    claim = null,
    lease_expires_at = null,
    finished_at = k.now,
    updated_at = k.now
  from clock k
  where j.id = any(array(select l.id from lapsed l where l.final)) and j.state = 'running'
  returning j.*
),
buried_counted as (
  insert into x_job_counters as c (name, bucket_ms, bucket_start, failed, dead)
  select b.name, 60000, to_timestamp(floor(extract(epoch from k.now) / 60) * 60),
    count(*) filter (where b.state = 'failed'), count(*) filter (where b.state = 'dead')
  from buried b cross join clock k
  group by b.name, k.now
  order by b.name
  on conflict (name, bucket_ms, bucket_start) do update set
    failed = c.failed + excluded.failed,
    dead = c.dead + excluded.dead
),
requeued as (
  update x_jobs j set
    state = 'ready',
    worker_id = null,
    claim = null,
    lease_expires_at = null,
    updated_at = k.now
  from clock k
  where j.id = any(array(select l.id from lapsed l where not l.final)) and j.state = 'running'
  returning j.id
)
select
  r.id, r.run_id, r.name, r.queue, r.input, r.idempotency_key, r.tenant_id, r.enqueued_by, r.state,
  r.attempt, r.max_attempts, r.priority, r.worker_id, r.claim, r.last_error, r.progress, r.concurrency_key,
  r.traceparent,
  floor(extract(epoch from r.run_at) * 1000)::float8 as run_at,
  floor(extract(epoch from r.created_at) * 1000)::float8 as created_at,
  floor(extract(epoch from r.updated_at) * 1000)::float8 as updated_at,
  floor(extract(epoch from r.lease_expires_at) * 1000)::float8 as lease_expires_at,
  floor(extract(epoch from r.finished_at) * 1000)::float8 as finished_at
from buried r
`;
