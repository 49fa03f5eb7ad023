/**
 * Settles ONE run done, fenced on its claim: `SQL_ACK` for a batch of one, with scalar parameters. The row moves only
 * while it is running under exactly that worker and claim token.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 id uuid, $3 worker_id text, $4 claim uuid, $5 the run's
 * duration in ms (int8).
 *
 * Returns one row, `landed` (int): 1 when the row moved, 0 when it did not (the lease lapsed and the row was
 * re-claimed, or it was cancelled). `done` and the duration are added to the name's current 1-minute bucket of
 * `x_job_counters` in the same statement, as `SQL_ACK` does.
 *
 * Why a statement of its own: the worker sends its statements prepared, and PostgreSQL keeps planning a prepared
 * statement afresh on every execution for as long as its generic plan is estimated dearer than the custom ones. With
 * arrays for parameters, the generic plan of `SQL_ACK` assumes ten ids (`id = any($2)`: an estimated cost of ~54 against
 * ~8.5 for a custom plan of one id, over a table of 100,000 finished rows analysed), so a worker settling its runs one at
 * a time — a quiet queue's every ack — had each ack planned afresh: 100 of 100 executions custom
 * (`pg_prepared_statements`). Here the row is one primary-key equality in both plans, so after five executions the
 * generic plan is kept. The rows are reached and fenced as in `SQL_ACK` (`coalesce(j.state, '')`: so the planner cannot
 * prove the lease index's predicate and walk it).
 */
export const SQL_ACK_ONE = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
),
settled as (
  update x_jobs j set
    state = 'done',
    worker_id = null,
    claim = null,
    lease_expires_at = null,
    finished_at = k.now,
    updated_at = k.now
  from clock k
  where j.id = $2::uuid
    and coalesce(j.state, '') = 'running'
    and j.worker_id = $3::text
    and j.claim = $4::uuid
  returning j.name
),
counted as (
  insert into x_job_counters as c (name, bucket_ms, bucket_start, done, duration_ms)
  select s.name, 60000, to_timestamp(floor(extract(epoch from k.now) / 60) * 60), 1, $5::int8
  from settled s
  cross join clock k
  on conflict (name, bucket_ms, bucket_start) do update set
    done = c.done + excluded.done,
    duration_ms = c.duration_ms + excluded.duration_ms
)
select count(*)::int as landed from settled
`;
