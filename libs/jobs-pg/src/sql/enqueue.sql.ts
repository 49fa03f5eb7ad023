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
 * `slot` and `woke` CTEs as `SQL_ENQUEUE_MANY`, `SQL_ENQUEUE_FRESH` and `SQL_ENQUEUE_BATCH` — unless one of two things
 * shows that another transaction announces this queue for it, by the statement's clock and its WAKE_SLOT_MS (5 ms) slot:
 * - a committed row of the queue, itself due within 1 s of its creation, whose id was minted AND whose `created_at`
 *   falls in this slot: its notification already woke the listeners. The id range makes it a primary-key range scan
 *   over the UUIDv7 ids of the slot (no write, no extra index); the `created_at` test keeps an app clock that runs
 *   ahead or behind the database from silencing a slot it was never in.
 * - a transaction in flight holding the queue's wake lock of this WAKE_LOCK_WINDOW_MS (25 ms) window — five slots —
 *   `pg_try_advisory_xact_lock(2020243307, hashtext(queue) # window)`: of concurrent enqueues (none sees the others'
 *   uncommitted rows) only the holder announces, so under a flood about one notifying transaction per queue is in
 *   flight at a time rather than one per slot. The two-int advisory key space is shared with the application: class
 *   2020243307 (WAKE_LOCK_CLASS, 'xjwk') is ours, and the lock never blocks (try) and ends with the transaction.
 *   The window is a bounded stand-in for "the whole queue": no statement can tell an autocommit transaction from one
 *   in a transaction block (over the extended protocol `now()` is the Parse/Bind message's time, before
 *   `statement_timestamp()`, in both), and a transaction block keeps its lock until COMMIT — keyed by its clock, which
 *   in a block is the transaction's start, so a long transaction silences only the arrivals of its own window.
 * Why throttle at all: PostgreSQL serialises the commits of every transaction that notified (a lock held through the
 * commit's WAL flush). Under the lock, notifying transactions of one queue follow each other rather than queue up, and
 * those that skip commit unhindered. The worst case it guarantees: a row with no committed sibling in its slot and no
 * lock holder in flight is announced itself. The woken worker passes at once and once more WAKE_SWEEP_MS (15 ms)
 * after the latest wake, so a row that skipped the announcement starts on that wake or the sweep:
 * - skipped for a committed sibling of its slot: the wake covering that sibling left no earlier than the slot began,
 *   so the sweep finds the row when its commit lands within WAKE_COMMIT_MARGIN_MS (10 ms) of the slot's end;
 * - skipped for a lock holder: the holder was in flight at the row's try-lock and its wake leaves at its commit, so the
 *   sweep finds the row when it commits within 15 ms of the holder's commit (the rest of its statement and its commit).
 * A later commit, or a holder that rolled back or is still open (an enqueue inside a longer transaction block: it
 * silences the arrivals of its 25 ms window until it commits), waits for the queue's next wake or the poll: late,
 * never lost. A deduped enqueue announces nothing.
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
slot as (
  -- the WAKE_SLOT_MS (5 ms) slot the statement's clock is in: its number n, and the UUIDv7 ids minted inside it
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
  -- this slot (its announcement woke the listeners), or another transaction in flight holds the queue's wake lock of
  -- this WAKE_LOCK_WINDOW_MS (25 ms) window: five slots
  select pg_notify('x_jobs_wake', d.queue)
  from (
    select distinct i.queue from inserted i cross join clock k
    where i.run_at <= k.now + interval '1 second'
  ) d
  cross join slot w
  where case
    when exists (
      select 1 from x_jobs s
      where s.id >= w.lo and s.id < w.hi
        and s.queue = d.queue
        and s.run_at <= s.created_at + interval '1 second'
        and floor(extract(epoch from s.created_at) * 1000 / 5)::bigint = w.n
    ) then false
    else pg_try_advisory_xact_lock(2020243307, hashtext(d.queue) # ((w.n / 5) % 2147483647)::int)
  end
)
select i.id, i.run_id, 'created' as outcome, null::text as holder_state
from inserted i cross join (select count(*) from woke) as announced
union all
select b.id, b.run_id, 'id', null from by_id b
union all
select h.id, h.run_id, 'key', h.state from by_key h where not exists (select 1 from by_id)
`;
