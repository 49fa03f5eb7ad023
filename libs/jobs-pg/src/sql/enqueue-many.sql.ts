/**
 * Inserts a batch of jobs in ONE statement, answering one row per request in request order. Each request is judged
 * as if the batch were enqueued one by one: a request whose id a stored row holds answers that row; one whose key a
 * live stored row holds answers the holder; of the requests sharing a key the first is inserted and the later ones
 * answer it; a request repeating an id earlier in the batch answers what that earlier request answered.
 *
 * $1 now (timestamptz; null = the database's `now()`), then one array per column, all the same length:
 * $2 ids uuid[], $3 run_ids uuid[], $4 names text[], $5 queues text[], $6 inputs text[] (JSON texts),
 * $7 idempotency_keys text[], $8 tenant_ids text[], $9 enqueued_bys text[], $10 run_ats timestamptz[],
 * $11 max_attempts int[], $12 priorities int[], $13 concurrency_keys text[], $14 traceparents text[],
 * $15 strict bool[] (true: the request was made with onConflict 'error'), $16 cross_tenant_reasons text[].
 *
 * Returns `(ord, id, run_id, outcome, holder_state)` per request, ord 1-based: outcome `created`, `id`, `key`, or
 * NULL when the request met a row committed after this statement's snapshot (a concurrent enqueue): re-run those
 * requests. When a strict request meets a live key, NOTHING is inserted — the batch is all or nothing, like one
 * enqueue that throws — and that request answers `key`.
 *
 * Linear in the batch whatever the planner believes: stored rows are found by one LATERAL index probe per request,
 * the in-batch contest is decided by window functions, and "did my row land" is a lookup in one jsonb object built
 * from the INSERT's RETURNING. Joins between these steps were planned as nested loops (the planner reads a 1,000-row
 * CTE as a handful of rows) and took ~700 ms for 1,000 requests.
 *
 * Announces each queue the batch created rows in, due within 1 s, once on `x_jobs_wake` — throttled per queue per
 * 5 ms slot exactly as `SQL_ENQUEUE` is (the
 * same `slot` and `woke` CTEs; see there for the worst case).
 */
export const SQL_ENQUEUE_MANY = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
req as (
  select r.*, min(r.ord) over (partition by r.id) = r.ord as first_of_id
  from unnest(
    $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
    $10::timestamptz[], $11::int[], $12::int[], $13::text[], $14::text[], $15::bool[], $16::text[]
  ) with ordinality as r(
    id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by,
    run_at, max_attempts, priority, concurrency_key, traceparent, strict, cross_tenant_reason, ord
  )
),
probe as (
  select r.*, s.id as stored_id, s.run_id as stored_run_id,
    h.id as held_id, h.run_id as held_run_id, h.state as held_state
  from req r
  left join lateral (
    select j.id, j.run_id from x_jobs j where r.first_of_id and j.id = r.id
  ) s on true
  left join lateral (
    select j.id, j.run_id, j.state from x_jobs j
    where r.first_of_id
      and j.name = r.name
      and coalesce(j.tenant_id, '') = coalesce(r.tenant_id, '')
      and j.idempotency_key = r.idempotency_key
      and j.state in ('ready', 'delayed', 'running', 'suspended')
  ) h on true
),
eligible as (
  select p.*, p.first_of_id and p.stored_id is null and p.held_id is null as eligible
  from probe p
),
ranked as (
  select e.*,
    first_value(e.eligible) over w as has_winner,
    first_value(e.ord) over w as winner_ord,
    first_value(e.id) over w as winner_id,
    first_value(e.run_id) over w as winner_run_id,
    first_value(case when e.run_at > k.now then 'delayed' else 'ready' end) over w as winner_state
  from eligible e
  cross join clock k
  window w as (
    partition by e.name, coalesce(e.tenant_id, ''), e.idempotency_key
    order by e.eligible desc, e.ord
  )
),
refused as (
  select exists (
    select 1 from ranked r
    where r.strict and r.first_of_id and r.stored_id is null
      and (r.held_id is not null or r.ord <> r.winner_ord)
  ) as refused
),
inserted as (
  insert into x_jobs (
    id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by, state, attempt,
    max_attempts, priority, run_at, created_at, updated_at, concurrency_key, traceparent,
    cross_tenant_reason
  )
  select
    r.id, r.run_id, r.name, r.queue, r.input::json, r.idempotency_key, r.tenant_id, r.enqueued_by,
    case when r.run_at > k.now then 'delayed' else 'ready' end, 0,
    r.max_attempts, r.priority, r.run_at, k.now, k.now, r.concurrency_key, r.traceparent,
    r.cross_tenant_reason
  from ranked r
  cross join clock k
  where r.eligible and r.ord = r.winner_ord and not (select f.refused from refused f)
  order by r.ord
  on conflict do nothing
  returning id, queue, run_at
),
slot as materialized (
  -- the WAKE_SLOT_MS (5 ms) slot the statement's clock is in: its number n, and the UUIDv7 ids minted inside it.
  -- Materialized, so that no plan knows the slot's bounds: a custom plan that folded them from a null $1 and now()
  -- estimated the slot's id range at one row, a generic plan at 0.5 % of the table, and the plan cache then re-planned
  -- the statement on every execution once x_jobs had statistics
  select a.n,
    (substr(b.lo, 1, 8) || '-' || substr(b.lo, 9, 4) || '-0000-0000-000000000000')::uuid as lo,
    (substr(b.hi, 1, 8) || '-' || substr(b.hi, 9, 4) || '-0000-0000-000000000000')::uuid as hi
  from (select floor(extract(epoch from k.now) * 1000 / 5)::bigint as n from clock k) a
  cross join lateral (
    select lpad(to_hex(a.n * 5), 12, '0') as lo, lpad(to_hex(a.n * 5 + 5), 12, '0') as hi
  ) b
),
woke as (
  -- each queue created rows due within 1 s, announced unless a committed row of the queue was minted AND created in
  -- this slot (its announcement woke the listeners), or another transaction in flight holds the slot's wake lock. The
  -- queues come as an array, whose length no plan can know: every plan then counts on the same number of them, and
  -- costs the probe below as often. Read as a set, a generic plan counted 3 of its 10 guessed rows and a custom plan of
  -- a small batch 1, so PostgreSQL 15 planned a batch of a few rows afresh on every execution
  select pg_notify('x_jobs_wake', d.queue)
  from unnest(array(
    select distinct i.queue from inserted i cross join clock k
    where i.run_at <= k.now + interval '1 second'
  )) as d(queue)
  cross join slot w
  where case
    when exists (
      select 1 from x_jobs s
      where s.id >= w.lo and s.id < w.hi
        and s.queue = d.queue
        and s.run_at <= s.created_at + interval '1 second'
        and floor(extract(epoch from s.created_at) * 1000 / 5)::bigint = w.n
    ) then false
    else pg_try_advisory_xact_lock(2020243307, hashtext(d.queue) # (w.n % 2147483647)::int)
  end
),
landed as (
  select coalesce(jsonb_object_agg(i.id::text, true), '{}'::jsonb) as ids from inserted i
),
answered as (
  select r.ord, r.id as request_id, r.first_of_id,
    case
      when r.stored_id is not null then r.stored_id
      when r.held_id is not null then r.held_id
      else r.winner_id
    end as id,
    case
      when r.stored_id is not null then r.stored_run_id
      when r.held_id is not null then r.held_run_id
      else r.winner_run_id
    end as run_id,
    case
      when not r.first_of_id then null
      when r.stored_id is not null then 'id'
      when r.held_id is not null then 'key'
      when (select l.ids from landed l) ? r.winner_id::text then
        case when r.ord = r.winner_ord then 'created' else 'key' end
      when r.strict and r.ord <> r.winner_ord then 'key'
    end as outcome,
    case
      when r.held_id is not null then r.held_state
      when r.ord <> r.winner_ord then r.winner_state
    end as holder_state
  from ranked r
)
select a.ord::int as ord,
  first_value(a.id) over f as id,
  first_value(a.run_id) over f as run_id,
  case
    when a.first_of_id then a.outcome
    when first_value(a.outcome) over f is not null then 'id'
  end as outcome,
  first_value(a.holder_state) over f as holder_state
from answered a
cross join (select count(*) from woke) as announced
window f as (partition by a.request_id order by a.ord)
order by a.ord
`;
