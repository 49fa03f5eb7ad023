/**
 * The fast path of a single enqueue: inserts one job unless a row holds its id or a live row holds its
 * `(name, tenant, idempotency key)`, and announces its queue on `x_jobs_wake` exactly as `SQL_ENQUEUE` does. It takes
 * the same 15 parameters as `SQL_ENQUEUE` ($1 now (timestamptz; null = the database's `now()`), $2 id, $3 run_id,
 * $4 name, $5 queue, $6 input (JSON text), $7 idempotency_key, $8 tenant_id, $9 enqueued_by, $10 run_at,
 * $11 max_attempts, $12 priority, $13 concurrency_key, $14 traceparent, $15 cross_tenant_reason).
 *
 * Returns one row `(created_s, announced)` when it inserted the job — its `created_at` as epoch seconds (a numeric,
 * exact to the microsecond: the caller learns the database clock and the wake slot the row holds from it, see
 * `SQL_ENQUEUE_QUIET`) and whether it announced its queue — and NO row when it met a row holding
 * the id or the live key (committed, or committed meanwhile by a concurrent enqueue): the caller then judges the
 * request with `SQL_ENQUEUE`, which answers which row it met. The ids are the caller's own ($2, $3). `on conflict do nothing` without a target covers both the primary
 * key and the live-key index, exactly the two tests `SQL_ENQUEUE` probes before its own insert.
 *
 * Why a second statement rather than `SQL_ENQUEUE` alone: PostgreSQL initialises every node of a plan on each
 * execution, run or not, so `SQL_ENQUEUE`'s probes, its dedupe branches and its CTEs cost a created job ~120 µs of
 * backend CPU on a 2-core machine (perf: executor start, index scans opened) — as much as the row's three index
 * entries. Here a created job pays for one ModifyTable and the wake's one sub-select; a deduped one pays for one more
 * round trip.
 *
 * The wake, in the RETURNING list: a job due within WAKE_DUE_WITHIN_MS (1 s) announces its queue unless a committed
 * row of the queue, itself due within 1 s of its creation, was minted (its UUIDv7 id) AND created in the same
 * WAKE_SLOT_MS (5 ms) slot of the statement's clock, or another transaction in flight holds the slot's wake lock
 * (`pg_try_advisory_xact_lock(2020243307, hashtext(queue) # slot)`) — the rule, the slot and the worst case of
 * `SQL_ENQUEUE` (see there), with the slot's bounds as `created_at` bounds rather than a per-row `floor(extract(…))`.
 * The sub-select does not see the row being inserted (the statement's snapshot predates it), and stops at the first
 * matching row of the slot. The slot's id range [lo, hi) is the slot's first millisecond, and the next slot's, as 12
 * hex digits followed by 20 zeros, which `uuid` reads without hyphens: PostgreSQL initialises every function of a
 * statement on each execution, and cutting the hex into hyphenated groups (four `substr`, eight `||` and a lateral
 * subquery) cost 33,000-48,000 backend instructions a statement (callgrind: this statement 631,200-635,700 ->
 * 587,700-598,500 a created job; `enqueue-slot-bounds.spec.ts` pins the range at its edges).
 */
export const SQL_ENQUEUE_INSERT = `
insert into x_jobs as j (
  id, run_id, name, queue, input, idempotency_key, tenant_id, enqueued_by, state, attempt,
  max_attempts, priority, run_at, created_at, updated_at, concurrency_key, traceparent,
  cross_tenant_reason
)
values (
  $2::uuid, $3::uuid, $4::text, $5::text, $6::json, $7::text, $8::text, $9::text,
  case when $10::timestamptz > coalesce($1::timestamptz, now()) then 'delayed' else 'ready' end, 0,
  $11::int, $12::int, $10::timestamptz, coalesce($1::timestamptz, now()), coalesce($1::timestamptz, now()),
  $13::text, $14::text, $15::text
)
on conflict do nothing
returning extract(epoch from j.created_at) as created_s,
  case when j.run_at <= j.created_at + interval '1 second' then (
    -- the slot's number n, its first instant, and the UUIDv7 ids minted inside it [lo, hi)
    select case
      when exists (
        select 1 from x_jobs s
        where s.id >= w.lo and s.id < w.hi
          and s.queue = j.queue
          and s.run_at <= s.created_at + interval '1 second'
          and s.created_at >= w.starts and s.created_at < w.starts + interval '5 milliseconds'
      ) then false
      when pg_try_advisory_xact_lock(2020243307, hashtext(j.queue) # (w.n % 2147483647)::int)
        then pg_notify('x_jobs_wake', j.queue) is not null
      else false
    end
    from (
      select a.n, timestamptz 'epoch' + a.n * interval '5 milliseconds' as starts,
        (lpad(to_hex(a.n * 5), 12, '0') || '00000000000000000000')::uuid as lo,
        (lpad(to_hex(a.n * 5 + 5), 12, '0') || '00000000000000000000')::uuid as hi
      from (select floor(extract(epoch from j.created_at) * 1000 / 5)::bigint as n) a
      offset 0 -- computed once, not inlined into every test of a row of the slot
    ) w
  ) else false end as announced
`;
