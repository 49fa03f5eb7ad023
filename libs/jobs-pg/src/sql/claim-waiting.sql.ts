/**
 * A busy worker's claim: waiting rows only, one served name per queue, in ONE statement — what `SQL_CLAIM` does when it
 * neither rescues (`$11` false), nor reports a low water, nor merges names, and no more.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 worker_id, $3 queues text[] (each at most once), $4 names
 * text[] (same length: the one job name served on that queue), $5 limits int[] (same length: free slots), $6 ahead
 * int[] (same length: rows the claim may take beyond the limit, only those it does not put on their final attempt),
 * $7 low float8[] (same length: the queue's low water in epoch ms, or null for no bound), $8 exclude_tenants text[],
 * $9 visibility timeout in ms, $10 async commit bool (true only when the statement is a transaction of its own: it sets
 * `synchronous_commit` off for that transaction, so its commit does not wait for the WAL flush — why every guarantee
 * holds: docs/design.md, "The claim commits without waiting for its WAL flush").
 *
 * Returns the same columns as `SQL_CLAIM`, every row of arm `claimed` (running, attempt + 1, this worker, a fresh
 * claim token, leased until now + $9), the timestamps as epoch milliseconds.
 *
 * Why a second statement: `SQL_CLAIM` is planned afresh on every execution. Its rescue arms and name merging make the
 * generic plan look dearer than a custom one with those arms folded away, so PostgreSQL never settles on the generic
 * plan (`pg_prepared_statements`: 0 generic, every execution custom), and planning its fourteen CTEs cost as much as
 * claiming a hundred rows — measured interleaved on a 2-core VM under load, claim + ack of 100 rows took 10 ms of backend
 * CPU with `SQL_CLAIM` and 6.5 ms with this statement, of 10 rows 5.3 and 1.8 ms. This one has nothing to fold, so after
 * its first five executions it runs on the cached generic plan. A worker's drain sends it for every claim but the one a
 * second that rescues or refreshes the low water. Its scans are `SQL_CLAIM`'s waiting arm for a slot of one name:
 * an ordered range scan of `x_jobs_claim_name_idx` from the low water, locked with `skip locked`; of the first `lim +
 * ahead` due rows the first `lim` are taken whatever their attempt and the rest only if not on their final attempt;
 * paused queues are skipped; the update reaches its rows by primary key.
 *
 * The claim token and the answer's statement-wide times are computed as in `SQL_CLAIM_WOKEN` (why, there): the token
 * is `sha224` over one random uuid drawn for the statement and the row's id, `updated_at` and `lease_expires_at` are
 * the statement's clock converted once, and every epoch ms passes through `int8`.
 *
 * Why the scan names its (queue, name) as a range of `(queue, name, priority)` row values rather than two equalities
 * (the same rows: priority is a non-null integer), and orders by the index's whole key: so that the claim index is the
 * only one that can bound it, and its order is the one asked for. With the equalities, two other indexes lead with the
 * same columns (`x_jobs_name_tenant_idempotency_live_idx` with name, until 0017 led it with the key; 0011's
 * `x_jobs_waiting_count_idx` with queue and name), and when the table's statistics say almost nothing waits — a queue's
 * usual state when ANALYZE ran, and a fresh table's — the planner costs a sort of "one row" as free and picks either of
 * them: the scan then reads EVERY waiting row of the name, sorts them all and locks the first `lim + ahead`, on every
 * claim until the statistics catch up. Measured (EXPLAIN ANALYZE, generic and custom plans, 5,000 finished rows
 * analysed, then 1,000 waiting): 1,000 index entries read and sorted for a claim of 110 rows, 101 buffers, 1.1–4 ms; at
 * 20,000 waiting, 20,000 entries and 19.5 ms a claim — a burst drained in O(backlog²). Over the row-value range only
 * the claim index gives an index condition and the order, so the plan is the ordered scan that stops at the limit
 * whatever the statistics: a scan of 110 entries, 0.2 ms, in the same two cases (spec: `claim-plan.spec.ts`).
 */
export const SQL_CLAIM_WAITING = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
slots as (
  select s.queue, s.name, s.lim, s.ahead, to_timestamp(s.low / 1000) as low
  from unnest($3::text[], $4::text[], $5::int[], $6::int[], $7::float8[]) as s(queue, name, lim, ahead, low)
  where (not $10::bool or set_config('synchronous_commit', 'off', true) = 'off')
    and not exists (select 1 from x_queue_pauses p where p.queue = s.queue)
),
picked as (
  select c.id
  from slots s
  cross join lateral (
    select w.id, w.final, row_number() over (order by w.priority, w.run_at, w.id) as rn
    from (
      select j.id, j.priority, j.run_at, j.attempt + 1 >= j.max_attempts as final
      from x_jobs j cross join clock k
      where (j.queue, j.name, j.priority) >= (s.queue, s.name, -2147483648)
        and (j.queue, j.name, j.priority) <= (s.queue, s.name, 2147483647)
        and j.state in ('ready', 'delayed', 'suspended')
        and j.run_at <= k.now
        and j.run_at >= coalesce(s.low, '-infinity'::timestamptz)
        and (j.tenant_id is null or j.tenant_id <> all($8::text[]))
      order by j.queue, j.name, j.priority, j.run_at, j.id
      limit s.lim + s.ahead
      for update of j skip locked
    ) w
  ) c
  where c.rn <= s.lim or not c.final
),
claimed as (
  update x_jobs j set
    state = 'running',
    attempt = j.attempt + 1,
    worker_id = $2::text,
    claim = encode(substring(sha224(uuid_send((select gen_random_uuid())) || uuid_send(j.id)) for 16), 'hex')::uuid,
    lease_expires_at = k.now + $9::float8 * interval '1 millisecond',
    updated_at = k.now
  from clock k
  where j.id = any(array(select p.id from picked p))
  returning j.*
)
select 'claimed' as arm,
  r.id, r.run_id, r.name, r.queue, r.input, r.idempotency_key, r.tenant_id, r.enqueued_by, r.state,
  r.attempt, r.max_attempts, r.priority, r.worker_id, r.claim, r.last_error, r.progress, r.concurrency_key,
  r.traceparent,
  floor(extract(epoch from r.run_at) * 1000)::int8::float8 as run_at,
  floor(extract(epoch from r.created_at) * 1000)::int8::float8 as created_at,
  (select floor(extract(epoch from k.now) * 1000)::int8::float8 from clock k) as updated_at,
  (select floor(extract(epoch from k.now + $9::float8 * interval '1 millisecond') * 1000)::int8::float8 from clock k)
    as lease_expires_at,
  floor(extract(epoch from r.finished_at) * 1000)::int8::float8 as finished_at
from claimed r
`;
