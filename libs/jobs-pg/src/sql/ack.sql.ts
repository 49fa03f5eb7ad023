/**
 * Settles runs done, each fenced on its own claim: a row moves only while it is running under exactly that worker
 * and claim token. Batch-shaped (arrays), so a worker settles every run that finished in one tick in one statement;
 * one run is arrays of one.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 ids uuid[], $3 worker_ids text[], $4 claims uuid[]
 * (same length; an id appears at most once).
 *
 * Returns `ord` (1-based position in the arrays) of every item that moved; a missing ord is a settle that did not
 * land (the lease lapsed and the row was re-claimed, or it was cancelled).
 *
 * Why it is written this way — each choice measured on a 2-core VM after 20,000 claims, 100 items:
 * - the rows are reached by primary key (`j.id = any($2)`) and the state is compared as `coalesce(j.state, '')`:
 *   written `j.state = 'running'`, it lets the planner prove `x_jobs_lease_idx`'s predicate and walk that index —
 *   every running row, plus every dead entry claims left there since the last vacuum;
 * - each row finds its own worker and claim by `array_position` in the arrays rather than by a join to their
 *   unnest, which the planner (guessing one row) ran as a nested loop of items × rows: 4–6 ms against 0.9 ms.
 */
export const SQL_ACK = `
with clock as not materialized (
  select coalesce($1::timestamptz, now()) as now
)
update x_jobs j set
  state = 'done',
  worker_id = null,
  claim = null,
  lease_expires_at = null,
  finished_at = k.now,
  updated_at = k.now
from clock k
where j.id = any($2::uuid[])
  and coalesce(j.state, '') = 'running'
  and j.worker_id = ($3::text[])[array_position($2::uuid[], j.id)]
  and j.claim = ($4::uuid[])[array_position($2::uuid[], j.id)]
returning array_position($2::uuid[], j.id) as ord
`;
