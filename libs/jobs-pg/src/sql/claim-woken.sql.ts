/**
 * A claim of ONE queue serving ONE job name, waiting rows only: `SQL_CLAIM_WAITING` for a single slot, written as one
 * UPDATE with scalar parameters. The driver sends it for every claim `SQL_CLAIM_WAITING` would answer that has one
 * slot: a woken worker's claims, and a busy one's, when it serves one queue and one name.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 worker_id, $3 queue, $4 the job name served on it, $5 limit
 * int (free slots), $6 ahead int (rows the claim may take beyond the limit, only those it does not put on their final
 * attempt), $7 low float8 (the queue's low water in epoch ms, or null for no bound), $8 exclude_tenants text[], $9
 * visibility timeout in ms, $10 async commit bool (true only when the statement is a transaction of its own: it sets
 * `synchronous_commit` off for that transaction — why every guarantee holds: docs/design.md, "The claim commits without
 * waiting for its WAL flush").
 *
 * Returns the columns of `SQL_CLAIM_WAITING`, every row of arm `claimed` (running, attempt + 1, this worker, a fresh
 * claim token, leased until now + $9), the timestamps as epoch milliseconds.
 *
 * The rules are `SQL_CLAIM_WAITING`'s for one slot, row for row: the same ordered range scan of
 * `x_jobs_claim_name_idx` from the low water (the `(queue, name, priority)` row-value range and the index's whole key as
 * the order: why, in `SQL_CLAIM_WAITING`), locked with `skip locked`; of the first `$5 + $6` due rows the first `$5`
 * are taken whatever their attempt and the rest only if not on their final attempt; a paused queue gives nothing and
 * locks nothing; the update reaches its rows by primary key.
 *
 * Why a third statement: PostgreSQL initialises a statement's whole plan on every execution, and `SQL_CLAIM_WAITING`'s
 * is a CTE plan built for many slots — the clock and slot CTEs over `unnest` of five arrays, a nested loop into the
 * lateral scan, a sort under its window, the update's CTE and the outer projection over it. A woken claim of one row
 * spent about a fifth of its backend time starting and ending those nodes. Here the pause and async-commit tests are
 * uncorrelated subqueries — one-time filters run once, before the scan; no sort is planned; and the update answers its
 * columns itself, no CTE and no outer scan. Measured interleaved against `SQL_CLAIM_WAITING` (one connection each, the
 * claims alternating, backend CPU from the backend's schedstat; 5 runs at load 2–14): a claim of one row 8–13 % less
 * (e.g. 486 -> 422 µs), an empty claim 15–18 % less (166 -> 142 µs), a claim of 110 rows 5–7 % less (4,820 -> 4,497
 * µs). The ids reach the update as an array (a bitmap scan of the primary key): joined to it instead, a claim of 110
 * rows cost as much as `SQL_CLAIM_WAITING`'s.
 *
 * Two parts of each row's cost are paid once a statement instead (callgrind, the backend of a session claiming 100
 * rows at a time, 2,000 rows: `scripts/bench/drain-claim-variants.mjs`): the claim token is the first 16 bytes of
 * `sha224` over one random uuid drawn for the statement (an InitPlan) and the row's id — distinct per row, fresh per
 * claim — where `gen_random_uuid()` a row cost ~14,200 instructions (OpenSSL's `RAND_bytes`, a `getpid` system call
 * each), the hash ~7,600; and the answer's `updated_at` and `lease_expires_at`, the same for every row of the
 * statement (the update sets both from the statement's clock), are converted to epoch ms once, in InitPlans: the
 * answer's projection went from ~14,700 to ~6,300 instructions a row. Every epoch ms passes through `int8`, not
 * straight to `float8`: a numeric's cast to `float8` prints it and parses the text back (the same integer value).
 *
 * The window numbers the rows in the order the locked scan delivers them, its `order by` (which its `limit` needs
 * anyway): a window ordering by those columns again plans a sort, as the planner does not carry a locked subquery's
 * order up to the window. Nothing between the scan and the window reorders rows. Its parameters are scalars its
 * generic plan estimates as well as a custom one, so after its first five executions it runs on the cached generic
 * plan (spec: `claim-woken.spec.ts`).
 */
export const SQL_CLAIM_WOKEN = `
update x_jobs j set
  state = 'running',
  attempt = j.attempt + 1,
  worker_id = $2::text,
  claim = encode(substring(sha224(uuid_send((select gen_random_uuid())) || uuid_send(j.id)) for 16), 'hex')::uuid,
  lease_expires_at = coalesce($1::timestamptz, now()) + $9::float8 * interval '1 millisecond',
  updated_at = coalesce($1::timestamptz, now())
where j.id = any(array(
    select c.id
    from (
      select w.id, w.final, row_number() over () as rn
      from (
        select p.id, p.queue, p.name, p.priority, p.run_at, p.attempt + 1 >= p.max_attempts as final
        from x_jobs p
        where (p.queue, p.name, p.priority) >= ($3::text, $4::text, -2147483648)
          and (p.queue, p.name, p.priority) <= ($3::text, $4::text, 2147483647)
          and p.state in ('ready', 'delayed', 'suspended')
          and p.run_at <= coalesce($1::timestamptz, now())
          and p.run_at >= coalesce(to_timestamp($7::float8 / 1000), '-infinity'::timestamptz)
          and (p.tenant_id is null or p.tenant_id <> all($8::text[]))
          and not exists (select 1 from x_queue_pauses q where q.queue = $3::text)
        order by p.queue, p.name, p.priority, p.run_at, p.id
        limit $5::int + $6::int
        for update of p skip locked
      ) w
    ) c
    where c.rn <= $5::int or not c.final
  ))
  and (not $10::bool or (select set_config('synchronous_commit', 'off', true)) = 'off')
returning 'claimed' as arm,
  j.id, j.run_id, j.name, j.queue, j.input, j.idempotency_key, j.tenant_id, j.enqueued_by, j.state,
  j.attempt, j.max_attempts, j.priority, j.worker_id, j.claim, j.last_error, j.progress, j.concurrency_key,
  j.traceparent,
  floor(extract(epoch from j.run_at) * 1000)::int8::float8 as run_at,
  floor(extract(epoch from j.created_at) * 1000)::int8::float8 as created_at,
  (select floor(extract(epoch from coalesce($1::timestamptz, now())) * 1000)::int8::float8) as updated_at,
  (select floor(extract(epoch from coalesce($1::timestamptz, now()) + $9::float8 * interval '1 millisecond') * 1000)::int8::float8)
    as lease_expires_at,
  floor(extract(epoch from j.finished_at) * 1000)::int8::float8 as finished_at
`;
