/**
 * Fires one occurrence of a task in ONE statement: moves the task's watermark from the one the fire was planned from,
 * inserts the occurrence's jobs only when that move happened, and records the fire — so a crash, a second leader or
 * a replay can never enqueue one occurrence twice. The move is a compare-and-set on `x_scheduler_state`: a concurrent
 * fire of the same task waits on the row lock, re-reads the row and moves nothing.
 *
 * The jobs are judged exactly as `SQL_ENQUEUE_MANY` judges a batch: a request whose id a stored row holds answers
 * that row; one whose key a live stored row holds answers the holder; of the requests sharing a key the first is
 * inserted and the later ones answer it; a request repeating an id earlier in the batch answers what that earlier
 * request answered. A strict request (`onConflict: 'error'`) meeting a live key refuses the whole fire: nothing moves
 * and nothing is inserted, as when an `enqueueMany` throws before the watermark is written.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 task, $3 occurrence (timestamptz), $4 the watermark to move
 * to (timestamptz), $5 the watermark planned from (timestamptz), then one array per column, all the same length:
 * $6 ids uuid[], $7 run_ids uuid[], $8 names text[], $9 queues text[], $10 inputs text[] (JSON texts),
 * $11 idempotency_keys text[], $12 tenant_ids text[], $13 enqueued_bys text[], $14 run_ats timestamptz[],
 * $15 max_attempts int[], $16 priorities int[], $17 concurrency_keys text[], $18 traceparents text[],
 * $19 strict bool[].
 *
 * Returns `(fired, refused, ord, id, run_id, outcome, holder_state)`. Fired (or refused by a strict request): one row
 * per request, ord 1-based, outcome `created`, `id`, `key`, or NULL when the request met a row committed after this
 * statement's snapshot (enqueue those again: the watermark already moved). Not fired, or no requests: one row with
 * ord NULL. Each queue that got a row due within 1 s is announced once on `x_jobs_wake` — unthrottled: a task fires
 * at most once a second.
 */
export const SQL_SCHEDULER_FIRE = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
req as (
  select r.*, min(r.ord) over (partition by r.id) = r.ord as first_of_id
  from unnest(
    $6::uuid[], $7::uuid[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[],
    $14::timestamptz[], $15::int[], $16::int[], $17::text[], $18::text[], $19::bool[]
  ) with ordinality as r(
    id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by,
    run_at, max_attempts, priority, concurrency_key, traceparent, strict, ord
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
moved as (
  update x_scheduler_state s set
    watermark = $4::timestamptz,
    last_fired_occurrence = $3::timestamptz,
    last_fired_at = k.now,
    updated_at = k.now
  from clock k
  where s.task = $2::text
    and s.watermark = $5::timestamptz
    and not (select f.refused from refused f)
  returning s.task
),
inserted as (
  insert into x_jobs (
    id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by, state, attempt,
    max_attempts, priority, run_at, created_at, updated_at, concurrency_key, traceparent
  )
  select
    r.id, r.run_id, r.name, r.queue, r.input::json, r.idempotency_key, r.tenant_id, r.enqueued_by,
    case when r.run_at > k.now then 'delayed' else 'ready' end, 0,
    r.max_attempts, r.priority, r.run_at, k.now, k.now, r.concurrency_key, r.traceparent
  from ranked r
  cross join clock k
  where exists (select 1 from moved) and r.eligible and r.ord = r.winner_ord
  order by r.ord
  on conflict do nothing
  returning id, queue, run_at
),
woke as (
  select pg_notify('x_jobs_wake', d.queue)
  from (
    select distinct i.queue from inserted i cross join clock k
    where i.run_at <= k.now + interval '1 second'
  ) d
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
),
answers as (
  select a.ord::int as ord,
    first_value(a.id) over f as id,
    first_value(a.run_id) over f as run_id,
    case
      when a.first_of_id then a.outcome
      when first_value(a.outcome) over f is not null then 'id'
    end as outcome,
    first_value(a.holder_state) over f as holder_state
  from answered a
  window f as (partition by a.request_id order by a.ord)
),
verdict as (
  select exists (select 1 from moved) as fired, (select f.refused from refused f) as refused
)
select v.fired, v.refused, a.ord, a.id, a.run_id, a.outcome, a.holder_state
from verdict v
left join answers a on v.fired or v.refused
cross join (select count(*) from woke) as announced
order by a.ord
`;
