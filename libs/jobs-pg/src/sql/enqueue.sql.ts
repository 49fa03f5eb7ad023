/**
 * Inserts one job, unless a row already holds its id (live or finished) or a LIVE row holds its
 * `(name, tenant, idempotency key)`.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 id, $3 run_id, $4 name, $5 queue, $6 input (JSON text, stored verbatim as json),
 * $7 idempotency_key, $8 tenant_id, $9 enqueued_by, $10 run_at, $11 max_attempts, $12 priority, $13 concurrency_key,
 * $14 traceparent, $15 cross_tenant_reason.
 *
 * Returns at most one row `(id, run_id, outcome, holder_state)`: outcome `created`; `id` (the id names a row: its
 * ids); or `key` (a live row holds the key: its ids and state). NO row means the insert met a row committed after
 * this statement's snapshot (a concurrent enqueue of the same id or key): run it again, and the next snapshot sees
 * that row. `on conflict do nothing` without a target covers both the primary key and the live-key index, so a race
 * never surfaces as a unique violation.
 *
 * A created row due within WAKE_DUE_WITHIN_MS (1 s) announces its queue on `x_jobs_wake` (the wake) — the same
 * `slot` and `woke` CTEs as `SQL_ENQUEUE_MANY`, `SQL_ENQUEUE_FRESH` and `SQL_ENQUEUE_BATCH` — unless one of two
 * things shows that another transaction announces this queue in the same WAKE_SLOT_MS (5 ms) slot of the statement's
 * clock:
 * - a committed row of the queue, itself due within 1 s of its creation, whose id was minted AND whose `created_at`
 *   falls in this slot: its notification already woke the listeners. The id range makes it a primary-key range scan
 *   over the UUIDv7 ids of the slot (no write, no extra index); the `created_at` test keeps an app clock that runs
 *   ahead or behind the database from silencing a slot it was never in.
 * - a transaction in flight holding the slot's wake lock, `pg_try_advisory_xact_lock(2020243307, hashtext(queue) #
 *   slot)`: of a wave of concurrent enqueues (none sees the others' uncommitted rows) only the holder announces. The
 *   two-int advisory key space is shared with the application: class 2020243307 (WAKE_LOCK_CLASS, 'xjwk') is ours,
 *   and the lock never blocks (try) and ends with the transaction. In a transaction block `now()` is the transaction's
 *   start, so a transaction takes at most one such lock per queue.
 * Why throttle at all: PostgreSQL serialises the commits of every transaction that notified (a lock held through the
 * commit's WAL flush). Under the lock, notifying transactions of one queue follow each other rather than queue up, and
 * those that skip commit unhindered. The worst case it guarantees: a row alone in its slot is announced itself; a
 * row that skipped the announcement starts on the wake that covered it or on the woken worker's sweep, which passes
 * once more WAKE_SWEEP_MS (15 ms: the slot and a 10 ms commit margin) after the latest wake — so within ~15 ms of
 * that wake when its commit lands within 10 ms of the slot's end. A later commit, or a slot whose announcing
 * transaction rolled back or is still open, waits for the queue's next wake or the poll: late, never lost. A deduped
 * enqueue announces nothing.
 */
export const SQL_ENQUEUE = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
by_id as (
  select j.id, j.run_id from x_jobs j where j.id = $2::uuid
),
by_key as (
  select j.id, j.run_id, j.state from x_jobs j
  where j.name = $4::text
    and coalesce(j.tenant_id, '') = coalesce($8::text, '')
    and j.idempotency_key = $7::text
    and j.state in ('ready', 'delayed', 'running', 'suspended')
),
inserted as (
  insert into x_jobs (
    id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by, state, attempt,
    max_attempts, priority, run_at, created_at, updated_at, concurrency_key, traceparent,
    cross_tenant_reason
  )
  select
    $2::uuid, $3::uuid, $4::text, $5::text, $6::json, $7::text, $8::text, $9::text,
    case when $10::timestamptz > k.now then 'delayed' else 'ready' end, 0,
    $11::int, $12::int, $10::timestamptz, k.now, k.now, $13::text, $14::text, $15::text
  from clock k
  where not exists (select 1 from by_id) and not exists (select 1 from by_key)
  on conflict do nothing
  returning id, run_id, queue, run_at
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
select i.id, i.run_id, 'created' as outcome, null::text as holder_state
from inserted i cross join (select count(*) from woke) as announced
union all
select b.id, b.run_id, 'id', null from by_id b
union all
select h.id, h.run_id, 'key', h.state from by_key h where not exists (select 1 from by_id)
`;
