/**
 * One claim pass over every queue with a free slot, in ONE statement.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 worker_id, $3 queues text[], $4 limits int[] (free slots
 * per queue, same length as $3; a queue named twice gets the sum), $5 visibility timeout in ms,
 * $6 drop_names text[] (jobs declaring `retry.deadLetter: false`), $7 exclude_tenants text[] (tenants at the
 * claiming worker's cap: their rows are not handed out; rows with no tenant always are), $8 ahead int[] (per queue,
 * same length as $3, or null for none: rows the claim may take beyond the queue's limit — the worker holds them until
 * a slot frees — and only rows this claim does not put on their final attempt, so a worker that dies holding them
 * never burns a last attempt on a row that did not run), $9 low float8[] (per queue, same length as $3, or null: the
 * queue's low water in epoch ms, or null for no bound), $10 report bool[] (per queue, same length as $3, or null:
 * compute the queue's low water and return it), $11 rescue bool (false: skip both rescue arms — lapsed leases are
 * neither buried nor re-taken, and the lease index is not read), $12 queues text[] and $13 names text[] (same length:
 * the (queue, name) pairs the slots serve — only rows of those names are handed out; a null name: every name of that
 * queue; a queue with no pair: nothing of it), $14 host (text, or null: the claim carries no registry beat and the
 * `beat` arm writes nothing), $15 pid (int, null), $16 queues text[], $17 slots (json text), $18 in-flight job ids
 * uuid[] (at most MAX_WORKER_IN_FLIGHT), $19 started at (timestamptz), $20 the beat's visibility timeout in ms — the
 * worker's registry beat (`SQL_WORKER_BEAT`'s parameters, its id being $2).
 *
 * Returns `arm` plus every `x_jobs` column, the timestamps as epoch milliseconds (float8, truncated as a JS `Date`
 * would): a client decodes a float far more cheaply than a `timestamptz` text, and a claim returns hundreds of rows.
 * Arm `claimed` for each row handed to the worker (running, attempt + 1,
 * this worker, a fresh claim token, leased until now + $5), arm `buried` for each running row whose lease lapsed on
 * its final attempt — settled `dead` (or `failed` when its name is in $6) with LEASE_LAPSED_FINAL_ATTEMPT, never
 * handed out, and arm `low-water` for each queue asked to report one: `queue`, and in `run_at` its low water.
 * A buried row is counted (`buried_counted`: `dead` or `failed` in its name's current 1-minute bucket of
 * `x_job_counters`) by this same statement, so the counters never disagree with the rows.
 * Paused queues (`x_queue_pauses`) are skipped by every arm.
 *
 * Names: a worker names the jobs it serves, so a row of a job it does not know — one a newer build added, mid rolling
 * deploy — stays waiting for a worker that does, never attempted nor buried by this one. The waiting rows are read
 * through `x_jobs_claim_name_idx` (queue, name, priority, run_at, id), one ordered range scan per served name, so a
 * backlog of other names is never stepped over. Merging those scans must not lock rows the claim then drops (a lock is
 * a heap write, and other claims skip the row): when a slot serves more than one name, `shares` first reads, without
 * locking, each name's first `lim + ahead` due rows, merges them in claim order and counts how many of the first `lim +
 * ahead` each name holds; each name's locked scan then takes that many. Without a concurrent claim that is the exact
 * merged order; with one, a name's scan skips the rows it holds and takes that name's next ones. A slot serving one
 * name skips `shares` (a one-time filter), and claims as fast as before names (measured interleaved, ±5 %, noise); five
 * names all with due backlogs cost 7–20 % more per row, and each served name one index probe per claim (~6 µs: 200
 * names, one with rows, add ~1.2 ms to a claim; a name whose share is 0 is not scanned again). A slot taking every name
 * is one scan of the queue sorted by claim order: fine for a tool or a test, not for a worker's hot path. The lapsed
 * arm re-takes only served names. The exhausted arm buries a served name's row at once, and any other once its lease
 * lapsed `$5` ms more — a worker serving it would have buried it long before, with its declaration; a row whose every
 * serving worker is gone must not stay running.
 *
 * The low water is why a held snapshot (a session idle in a transaction) no longer drags the claim down: every row
 * claimed since that snapshot leaves an entry in `x_jobs_claim_name_idx` whose heap tuple can be neither pruned nor
 * marked dead, and the waiting scan, starting at the name's first entry, visited every one of them on every claim. With
 * `run_at >= low` as an index condition the scan starts past the entries run before the bound. The bound is a hint,
 * never a correctness dependency: it is the least run_at of ALL the queue's waiting rows in this statement's snapshot
 * (excluded tenants, rows past the limit, rows not yet due, rows this very claim takes — the aggregate reads the
 * snapshot, not the update's result), and at most the claim's now less one second, so a row whose enqueue read its
 * clock before this claim but committed after its snapshot is still above it; new rows, retries, promotes and resumes
 * run at about now or later. A row that lands below it anyway (an application clock behind this one) is found when the
 * driver asks for a fresh low water, which it does every `LOW_WATER_REFRESH_MS` (`PgLowWater`, the driver's own). It is computed by `firsts`, a
 * loose scan of `x_jobs_claim_name_idx`: the first entry of each (name, priority) of the queue, each found by one
 * descent of the index from the previous one (`(name, priority) >` the last), so the cost is one probe per distinct
 * (name, priority), not one visit per waiting row — an aggregate over the queue's rows read all 50,000 of a drain's
 * backlog (a sequential scan, 23–40 ms on a loaded 2-core VM, once a second), this reads a few entries (0.1 ms).
 * Under a held snapshot a probe still steps over the dead entries at the head of its (name, priority), as the claim's
 * own scan would without the bound: that price is paid once per refresh.
 *
 * Per queue, due rows are waiting rows (ready, delayed, suspended) whose run_at has come, and running rows whose lease
 * lapsed (their worker died) with attempts left: each set is an ordered range scan of its own partial index, locked
 * with `skip locked` so concurrent claims take different rows instead of waiting, then merged by priority, run time and
 * id. Of the first `lim + ahead` due rows in that order, the first `lim` are taken whatever their attempt, the rest
 * only if `attempt + 1 < max_attempts` (a final-attempt row past the limit stays for a claim with a free slot; it is
 * ahead of every row taken past it, so the next such claim takes it first). Burying is bounded (1,000 rows) and apart
 * from the slot limits, so rows the claim cannot hand out never take the place of rows it can. The clock is `not
 * materialized` so `run_at <= now` stays an index condition of the waiting scan rather than a filter on every row it
 * visits. The two updates reach their rows through `id = any(array(…))`, a primary-key probe per row: joined to the
 * CTEs instead, the planner (guessing 500 picked rows) hashed a sequential scan of the whole table — 40 ms a claim over
 * 50,000 rows, measured. The burying update states its `running` check as `coalesce(j.state, '')` so the planner cannot
 * prove `x_jobs_lease_idx`'s predicate and walk that index (with every dead entry acks left in it) on every claim, even
 * when nothing is to be buried.
 *
 * The two rescue arms (`exhausted` and the `lapsed` scan of `picked`) walk `x_jobs_lease_idx` from its first entry,
 * and under a held snapshot every row that went through running since it leaves a dead entry there, visited once its
 * lease time has passed: about 2,500 buffers per arm and claim with 100,000 such rows. Lapsed leases are rare (a
 * worker died), so a claim may skip both: `$11::bool` leads each arm's `where`, a qual naming no column of the scan,
 * so the planner makes it a one-time filter (`One-Time Filter: $11`, or a constant-false Result in a custom plan)
 * checked before the scan under it starts — with `$11` false the lease index is never opened. A worker passes true on
 * its first claim, on any claim made with nothing in flight, and otherwise at most every `RESCUE_INTERVAL_MS`.
 *
 * The `beat` arm upserts the claiming worker's `x_workers` row as `SQL_WORKER_BEAT` does, when $14 is set: an idle
 * worker claims every few seconds anyway, so its presence rides a claim it was sending instead of costing a statement
 * of its own. `$14::text is not null` names no column, so the planner makes it a one-time filter: a claim carrying no
 * beat (every busy claim but one per heartbeat interval) never touches `x_workers`.
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
        and j.queue = s.queue
        and j.name = m.name
        and j.state in ('ready', 'delayed', 'suspended')
        and j.run_at <= k.now
        and j.run_at >= coalesce(s.low, '-infinity'::timestamptz)
        and (j.tenant_id is null or j.tenant_id <> all($7::text[]))
      order by j.priority, j.run_at, j.id
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
            and j.queue = s.queue
            and j.name = m.name
            and j.state in ('ready', 'delayed', 'suspended')
            and j.run_at <= k.now
            and j.run_at >= coalesce(s.low, '-infinity'::timestamptz)
            and (j.tenant_id is null or j.tenant_id <> all($7::text[]))
          order by j.priority, j.run_at, j.id
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
