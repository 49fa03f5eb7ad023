/**
 * One claim pass over every queue with a free slot, in ONE statement.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 worker_id, $3 queues text[], $4 limits int[] (free slots
 * per queue, same length as $3; a queue named twice gets the sum), $5 visibility timeout in ms,
 * $6 drop_names text[] (jobs declaring `retry.deadLetter: false`), $7 exclude_tenants text[] (tenants at the
 * claiming worker's cap: their rows are not handed out; rows with no tenant always are), $8 ahead int[] (per queue,
 * same length as $3, or null for none: rows the claim may take beyond the queue's limit — the worker holds them until
 * a slot frees — and only rows this claim does not put on their final attempt), $9 low float8[] (per queue, same
 * length as $3, or null: the queue's low water in epoch ms, or null for no bound), $10 report bool[] (per queue, same
 * length as $3, or null: compute the queue's low water and return it), $11 rescue bool (false: skip both rescue arms
 * — lapsed leases are neither buried nor re-taken, and the lease index is not read), $12 queues text[] and $13 names
 * text[] (same length: the (queue, name) pairs the slots serve — only rows of those names are handed out; a null
 * name: every name of that queue; a queue with no pair: nothing of it), $14 host (text, or null: the claim carries no
 * registry beat and the `beat` arm writes nothing), $15 pid (int, null), $16 queues text[], $17 slots (json text), $18
 * in-flight job ids uuid[] (at most MAX_WORKER_IN_FLIGHT), $19 started at (timestamptz), $20 the beat's visibility
 * timeout in ms — the worker's registry beat (`SQL_WORKER_BEAT`'s parameters, its id being $2), $21 async commit bool
 * (true only when the statement is a transaction of its own: when it claims a row and buries none, its commit does not
 * wait for the WAL flush; a burial stays durable, as the worker announces it once — onSettled — on the answer).
 *
 * Returns `arm` plus every `x_jobs` column, the timestamps as epoch milliseconds (float8, truncated as a JS `Date`
 * would: a client decodes a float far more cheaply than a `timestamptz` text, and a claim returns hundreds of rows).
 * Arm `claimed` for each row handed to the worker (running, attempt + 1, this worker, a fresh claim token, leased
 * until now + $5); arm `buried` for each running row whose lease lapsed on its final attempt — settled `dead` (or
 * `failed` when its name is in $6) with LEASE_LAPSED_FINAL_ATTEMPT, counted in `x_job_counters` by `buried_counted`,
 * never handed out; arm `low-water` for each queue asked to report one: `queue`, and in `run_at` its low water.
 *
 * Why each arm is shaped as it is — due rows and their merge, names and `shares`, the rescue arms and their one-time
 * filters, the low water and its loose scan, the carried beat, the plan shapes measured, and why the commit may skip
 * its WAL flush (`$21`) with every guarantee kept: docs/design.md, "The claim (PostgreSQL)". The scans of one served
 * name bound (queue, name) as a range of `(queue, name, priority)` row values and order by the claim index's whole
 * key, so that only `x_jobs_claim_name_idx` can serve them whatever the statistics say: why, in `SQL_CLAIM_WAITING`.
 */
export const SQL_CLAIM = `
with recursive clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
slots as (
  select s.queue, sum(s.lim)::int as lim, coalesce(sum(s.ahead), 0)::int as ahead,
    case when bool_and(s.low is not null) then to_timestamp(min(s.low) / 1000) end as low,
    coalesce(bool_or(s.report), false) as report,
    exists (
      select 1 from unnest($12::text[], $13::text[]) as n(queue, name) where n.queue = s.queue and n.name is null
    ) as any_name,
    array(
      select distinct n.name from unnest($12::text[], $13::text[]) as n(queue, name)
      where n.queue = s.queue and n.name is not null
    ) as names
  from unnest($3::text[], $4::int[], $8::int[], $9::float8[], $10::bool[]) as s(queue, lim, ahead, low, report)
  where not exists (select 1 from x_queue_pauses p where p.queue = s.queue)
  group by s.queue
),
exhausted as (
  select j.id
  from x_jobs j cross join clock k
  where $11::bool
    and j.state = 'running'
    and j.lease_expires_at <= k.now
    and j.attempt >= j.max_attempts
    and exists (
      select 1 from slots s
      where s.queue = j.queue
        and (s.any_name or j.name = any(s.names) or j.lease_expires_at <= k.now - $5::float8 * interval '1 millisecond')
    )
  order by j.lease_expires_at
  limit 1000
  for update of j skip locked
),
buried as (
  update x_jobs j set
    state = case when j.name = any($6::text[]) then 'failed' else 'dead' end,
    last_error = 'LEASE_LAPSED_FINAL_ATTEMPT',
    worker_id = null,
    claim = null,
    lease_expires_at = null,
    finished_at = k.now,
    updated_at = k.now
  from clock k
  where j.id = any(array(select e.id from exhausted e)) and coalesce(j.state, '') = 'running'
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
beat as (
  insert into x_workers as w (id, host, pid, queues, slots, in_flight, started_at, heartbeat_at, expires_at)
  select $2::text, $14::text, $15::int, $16::text[], $17::jsonb, $18::uuid[], $19::timestamptz, k.now,
    k.now + $20::float8 * interval '1 millisecond'
  from clock k
  where $14::text is not null
  on conflict (id) do update set
    host = excluded.host,
    pid = excluded.pid,
    queues = excluded.queues,
    slots = excluded.slots,
    in_flight = excluded.in_flight,
    started_at = excluded.started_at,
    heartbeat_at = excluded.heartbeat_at,
    expires_at = excluded.expires_at
),
shares as materialized (
  select v.queue, v.name, count(*)::int as share
  from (
    select s.queue, m.name, s.lim + s.ahead as want,
      row_number() over (partition by s.queue order by c.priority, c.run_at, c.id) as rn
    from slots s
    cross join lateral unnest(s.names) as m(name)
    cross join lateral (
      select j.priority, j.run_at, j.id
      from x_jobs j cross join clock k
      where not s.any_name and cardinality(s.names) > 1
        and (j.queue, j.name, j.priority) >= (s.queue, m.name, -2147483648)
        and (j.queue, j.name, j.priority) <= (s.queue, m.name, 2147483647)
        and j.state in ('ready', 'delayed', 'suspended')
        and j.run_at <= k.now
        and j.run_at >= coalesce(s.low, '-infinity'::timestamptz)
        and (j.tenant_id is null or j.tenant_id <> all($7::text[]))
      order by j.queue, j.name, j.priority, j.run_at, j.id
      limit s.lim + s.ahead
    ) c
  ) v
  where v.rn <= v.want
  group by v.queue, v.name
),
picked as (
  select n.id
  from slots s
  cross join lateral (
    select c.id
    from (
      select u.id, u.final, row_number() over (order by u.priority, u.run_at, u.id) as rn
      from (
        select w.*
        from unnest(s.names) as m(name)
        left join shares d on d.queue = s.queue and d.name = m.name
        cross join lateral (
          select j.id, j.priority, j.run_at, j.attempt + 1 >= j.max_attempts as final
          from x_jobs j cross join clock k
          where not s.any_name
            and (j.queue, j.name, j.priority) >= (s.queue, m.name, -2147483648)
            and (j.queue, j.name, j.priority) <= (s.queue, m.name, 2147483647)
            and j.state in ('ready', 'delayed', 'suspended')
            and j.run_at <= k.now
            and j.run_at >= coalesce(s.low, '-infinity'::timestamptz)
            and (j.tenant_id is null or j.tenant_id <> all($7::text[]))
          order by j.queue, j.name, j.priority, j.run_at, j.id
          limit case when cardinality(s.names) = 1 then s.lim + s.ahead else coalesce(d.share, 0) end
          for update of j skip locked
        ) w
        union all
        select * from (
          select j.id, j.priority, j.run_at, j.attempt + 1 >= j.max_attempts as final
          from x_jobs j cross join clock k
          where s.any_name
            and j.queue = s.queue
            and j.state in ('ready', 'delayed', 'suspended')
            and j.run_at <= k.now
            and j.run_at >= coalesce(s.low, '-infinity'::timestamptz)
            and (j.tenant_id is null or j.tenant_id <> all($7::text[]))
          order by j.priority, j.run_at, j.id
          limit s.lim + s.ahead
          for update of j skip locked
        ) any_waiting
        union all
        select * from (
          select j.id, j.priority, j.run_at, j.attempt + 1 >= j.max_attempts as final
          from x_jobs j cross join clock k
          where $11::bool
            and j.queue = s.queue
            and j.state = 'running'
            and j.lease_expires_at <= k.now
            and j.attempt < j.max_attempts
            and (s.any_name or j.name = any(s.names))
            and (j.tenant_id is null or j.tenant_id <> all($7::text[]))
          order by j.priority, j.run_at, j.id
          limit s.lim + s.ahead
          for update of j skip locked
        ) lapsed
      ) u
      order by u.priority, u.run_at, u.id
      limit s.lim + s.ahead
    ) c
    where c.rn <= s.lim or not c.final
  ) n
),
firsts as (
  select s.queue, f.name, f.priority, f.run_at
  from slots s
  cross join lateral (
    select j.name, j.priority, j.run_at
    from x_jobs j
    where j.queue = s.queue and j.state in ('ready', 'delayed', 'suspended')
    order by j.name, j.priority, j.run_at
    limit 1
  ) f
  where s.report
  union all
  select p.queue, n.name, n.priority, n.run_at
  from firsts p
  cross join lateral (
    select j.name, j.priority, j.run_at
    from x_jobs j
    where j.queue = p.queue and j.state in ('ready', 'delayed', 'suspended')
      and (j.name, j.priority) > (p.name, p.priority)
    order by j.name, j.priority, j.run_at
    limit 1
  ) n
),
low_water as (
  select s.queue,
    floor(extract(epoch from least(
      (select min(f.run_at) from firsts f where f.queue = s.queue),
      k.now - interval '1 second'
    )) * 1000)::float8 as low
  from slots s cross join clock k
  where s.report
),
claimed as (
  update x_jobs j set
    state = 'running',
    attempt = j.attempt + 1,
    worker_id = $2::text,
    claim = gen_random_uuid(),
    lease_expires_at = k.now + $5::float8 * interval '1 millisecond',
    updated_at = k.now
  from clock k
  where j.id = any(array(select p.id from picked p))
    and (
      not $21::bool
      or exists (select 1 from buried)
      or (select set_config('synchronous_commit', 'off', true)) = 'off'
    )
  returning j.*
)
select r.arm,
  r.id, r.run_id, r.name, r.queue, r.input, r.idempotency_key, r.tenant_id, r.enqueued_by, r.state,
  r.attempt, r.max_attempts, r.priority, r.worker_id, r.claim, r.last_error, r.progress, r.concurrency_key,
  r.traceparent,
  floor(extract(epoch from r.run_at) * 1000)::float8 as run_at,
  floor(extract(epoch from r.created_at) * 1000)::float8 as created_at,
  floor(extract(epoch from r.updated_at) * 1000)::float8 as updated_at,
  floor(extract(epoch from r.lease_expires_at) * 1000)::float8 as lease_expires_at,
  floor(extract(epoch from r.finished_at) * 1000)::float8 as finished_at
from (
  select 'claimed' as arm, c.* from claimed c
  union all
  select 'buried' as arm, b.* from buried b
) r
union all
select 'low-water' as arm,
  null, null, null, w.queue, null, null, null, null, null,
  null, null, null, null, null, null, null, null,
  null,
  w.low,
  null,
  null,
  null,
  null
from low_water w
`;
