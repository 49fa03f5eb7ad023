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
 * $15 strict bool[] (true: the request was made with onConflict 'error').
 *
 * Returns `(ord, id, run_id, outcome, holder_state)` per request, ord 1-based: outcome `created`, `id`, `key`, or
 * NULL when the request met a row committed after this statement's snapshot (a concurrent enqueue): re-run those
 * requests. When a strict request meets a live key, NOTHING is inserted — the batch is all or nothing, like one
 * enqueue that throws — and that request answers `key`.
 */
export const SQL_ENQUEUE_MANY = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
req as (
  select r.*, min(r.ord) over (partition by r.id) as id_first
  from unnest(
    $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
    $10::timestamptz[], $11::int[], $12::int[], $13::text[], $14::text[], $15::bool[]
  ) with ordinality as r(
    id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by,
    run_at, max_attempts, priority, concurrency_key, traceparent, strict, ord
  )
),
probe as (
  select r.*, s.id as stored_id, s.run_id as stored_run_id,
    h.id as held_id, h.run_id as held_run_id, h.state as held_state
  from req r
  left join x_jobs s on s.id = r.id
  left join x_jobs h
    on h.name = r.name
    and coalesce(h.tenant_id, '') = coalesce(r.tenant_id, '')
    and h.idempotency_key = r.idempotency_key
    and h.state in ('ready', 'delayed', 'running', 'suspended')
  where r.ord = r.id_first
),
contest as (
  select p.*,
    min(p.ord) over (partition by p.name, coalesce(p.tenant_id, ''), p.idempotency_key) as key_first
  from probe p
  where p.stored_id is null and p.held_id is null
),
refused as (
  select 1 from probe p
  where p.strict and p.stored_id is null and p.held_id is not null
  union all
  select 1 from contest c where c.strict and c.ord <> c.key_first
),
inserted as (
  insert into x_jobs (
    id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by, state, attempt,
    max_attempts, priority, run_at, created_at, updated_at, concurrency_key, traceparent
  )
  select
    c.id, c.run_id, c.name, c.queue, c.input::jsonb, c.idempotency_key, c.tenant_id, c.enqueued_by,
    case when c.run_at > k.now then 'delayed' else 'ready' end, 0,
    c.max_attempts, c.priority, c.run_at, k.now, k.now, c.concurrency_key, c.traceparent
  from contest c cross join clock k
  where c.ord = c.key_first and not exists (select 1 from refused)
  order by c.ord
  on conflict do nothing
  returning id, run_id, state
),
answer as (
  select p.ord,
    case
      when p.stored_id is not null then p.stored_id
      when p.held_id is not null then p.held_id
      else coalesce(i.id, w.id)
    end as id,
    case
      when p.stored_id is not null then p.stored_run_id
      when p.held_id is not null then p.held_run_id
      else coalesce(i.run_id, w.run_id)
    end as run_id,
    case
      when p.stored_id is not null then 'id'
      when p.held_id is not null then 'key'
      when c.ord <> c.key_first and (i.id is not null or c.strict) then 'key'
      when i.id is not null then 'created'
    end as outcome,
    case
      when p.held_id is not null then p.held_state
      when c.ord <> c.key_first then coalesce(i.state, 'ready')
    end as holder_state
  from probe p
  left join contest c on c.ord = p.ord
  left join contest w on w.ord = c.key_first
  left join inserted i on i.id = w.id
)
select r.ord::int as ord, a.id, a.run_id,
  case when r.ord = r.id_first or a.outcome is null then a.outcome else 'id' end as outcome,
  a.holder_state
from req r
left join answer a on a.ord = r.id_first
order by r.ord
`;
