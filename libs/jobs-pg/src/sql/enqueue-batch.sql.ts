/**
 * The optimistic fast path of a batch enqueue: ONE plain `insert … select from unnest(…)` of every request, with no
 * conflict handling at all. It either lands every row — each request is then answered `created`, exactly what the
 * judging statement (`SQL_ENQUEUE_MANY`) would answer, since no stored row held any id or live key — or it fails with a
 * unique violation (23505) and lands none, and the caller judges the batch the conflict-tolerant way. The driver sends
 * it only where a failed statement harms nothing: over a `PgExecutor.shared` executor (every statement in a
 * transaction of its own, never the caller's), and only batches that repeat no id and no key inside themselves.
 *
 * Why not `on conflict do nothing`: that is a speculative insertion for every row — a conflict check per unique index
 * before the insert, a speculative-insertion lock, then a confirm record written after it — and it cost more than all
 * three indexes together: per 1,000 rows, measured in backend CPU on a 2-core machine, 17.5 ms plain, 22.6 ms with
 * `on conflict (id)`, 27.3 ms with `on conflict do nothing` (which arbitrates both unique indexes). Nothing is
 * returned to the client: every row landed, so the caller already knows each request's ids.
 *
 * The parameters are shaped for the client's cost as much as the server's: the ids and run ids as binary `uuid[]`
 * (16 bytes an id, copied, where 36 characters of text were parsed: ~15 % of the statement's backend CPU on a 1,000-row
 * batch); the other arrays as literals built by the driver; the JSON inputs as ONE text, one input per line —
 * `JSON.stringify` never writes a raw line feed (it escapes every control character inside strings), so a line is
 * exactly one input and needs no quoting; an empty line is SQL NULL;
 * and a column other than the ids, inputs and keys that holds one value for every request (a bulk batch's name,
 * queue, tenant, due time, priority, its nulls) as a ONE-element array, read once rather than parsed 1,000 times —
 * ~2 of ~13 ms of backend CPU on a 1,000-row batch. A one-element array is never ambiguous: `unnest` pads it with
 * NULLs past its first row, and the statement reads its one value for every row instead. Those values are read in
 * the materialized `one` CTE: written as a subquery, the planner pulled its `cardinality(…)` and `(…)[1]` up into every
 * row's CASE, ~4 M of ~90 M backend instructions a 1,000-row batch (callgrind, PostgreSQL 18).
 *
 * $1 now (timestamptz; null = the database's `now()`), then one array per column, each as long as the batch or,
 * where marked (*), one element standing for every request:
 * $2 ids uuid[], $3 run_ids uuid[], $4 names text[]*, $5 queues text[]*, $6 inputs text (JSON texts joined by line
 * feeds), $7 idempotency_keys text[], $8 tenant_ids text[]*, $9 enqueued_bys text[]*, $10 run_ats timestamptz[]*,
 * $11 max_attempts int[]*, $12 priorities int[]*, $13 concurrency_keys text[]*, $14 traceparents text[]*,
 * $15 cross_tenant_reasons text[]*.
 *
 * Returns one row, `inserted`: the rows written (every request). Announces each queue it created rows in, due within
 * 1 s, on `x_jobs_wake`, throttled per queue per slot exactly as `SQL_ENQUEUE` is (the same `slot` and `woke` CTEs;
 * see there for the worst case).
 */
export const SQL_ENQUEUE_BATCH = `
with one as materialized (
  -- a column holding one value throughout comes as that one value: read once, here. Materialized, so that the
  -- planner does not pull these expressions up into every row's CASE (a cardinality and a subscript per column a row)
  select
    cardinality($4::text[]) = 1 as one_name, ($4::text[])[1] as name,
    cardinality($5::text[]) = 1 as one_queue, ($5::text[])[1] as queue,
    cardinality($8::text[]) = 1 as one_tenant_id, ($8::text[])[1] as tenant_id,
    cardinality($9::text[]) = 1 as one_enqueued_by, ($9::text[])[1] as enqueued_by,
    cardinality($10::timestamptz[]) = 1 as one_run_at, ($10::timestamptz[])[1] as run_at,
    cardinality($11::int[]) = 1 as one_max_attempts, ($11::int[])[1] as max_attempts,
    cardinality($12::int[]) = 1 as one_priority, ($12::int[])[1] as priority,
    cardinality($13::text[]) = 1 as one_concurrency_key, ($13::text[])[1] as concurrency_key,
    cardinality($14::text[]) = 1 as one_traceparent, ($14::text[])[1] as traceparent,
    cardinality($15::text[]) = 1 as one_cross_tenant_reason, ($15::text[])[1] as cross_tenant_reason
),
clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
inserted as (
  insert into x_jobs (
    id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by, state, attempt,
    max_attempts, priority, run_at, created_at, updated_at, concurrency_key, traceparent,
    cross_tenant_reason
  )
  select
    b.id, b.run_id, b.name, b.queue, nullif(b.input, '')::json, b.idempotency_key, b.tenant_id, b.enqueued_by,
    case when b.run_at > k.now then 'delayed' else 'ready' end, 0,
    b.max_attempts, b.priority, b.run_at, k.now, k.now, b.concurrency_key, b.traceparent,
    b.cross_tenant_reason
  from (
    select r.id, r.run_id, r.input, r.idempotency_key,
      case when u.one_name then u.name else r.name end as name,
      case when u.one_queue then u.queue else r.queue end as queue,
      case when u.one_tenant_id then u.tenant_id else r.tenant_id end as tenant_id,
      case when u.one_enqueued_by then u.enqueued_by else r.enqueued_by end as enqueued_by,
      case when u.one_run_at then u.run_at else r.run_at end as run_at,
      case when u.one_max_attempts then u.max_attempts else r.max_attempts end as max_attempts,
      case when u.one_priority then u.priority else r.priority end as priority,
      case when u.one_concurrency_key then u.concurrency_key else r.concurrency_key end as concurrency_key,
      case when u.one_traceparent then u.traceparent else r.traceparent end as traceparent,
      case when u.one_cross_tenant_reason then u.cross_tenant_reason else r.cross_tenant_reason end
        as cross_tenant_reason
    from unnest(
      $2::uuid[], $3::uuid[], $4::text[], $5::text[], string_to_array($6::text, E'\\n'), $7::text[], $8::text[],
      $9::text[], $10::timestamptz[], $11::int[], $12::int[], $13::text[], $14::text[], $15::text[]
    ) as r(
      id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by,
      run_at, max_attempts, priority, concurrency_key, traceparent, cross_tenant_reason
    )
    cross join one u
  ) b
  cross join clock k
  returning queue, run_at
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
)
select count(*)::int as inserted from inserted i cross join (select count(*) from woke) as announced
`;
