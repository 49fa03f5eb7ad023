/**
 * `SQL_ENQUEUE_INSERT` without `on conflict do nothing`, for a shared executor: the same 15 parameters, the same row,
 * the same wake (the slot sub-select, the wake lock, `pg_notify`) and the same answer `(created_s, announced)` for a
 * row it created. A row holding the id or the live key fails the statement with a unique violation (23505) instead of
 * answering no row: over a shared executor the statement is a transaction of its own, so the failure ends nothing of
 * the caller's and its notification is discarded with it; the caller then judges the request with `SQL_ENQUEUE`.
 *
 * Why: `on conflict` makes PostgreSQL insert speculatively — probe both unique indexes before the insert, insert the
 * tuple as speculative, then confirm it in a WAL record of its own (48 bytes a row, `Heap/HEAP_CONFIRM`) — which a
 * created job pays for every time (callgrind: ~31,000 backend instructions a row) and only a deduped one needs. Over an
 * executor inside the caller's transaction the driver keeps `SQL_ENQUEUE_INSERT`: a failed statement would abort the
 * caller's transaction. Its slot's id range is built as `SQL_ENQUEUE_INSERT`'s (hex digits read by `uuid` without
 * hyphens; see there).
 */
export const SQL_ENQUEUE_INSERT_PLAIN = `
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
