/**
 * Settles runs done, each fenced on its own claim: a row moves only while it is running under exactly that worker
 * and claim token. Batch-shaped (arrays), so a worker settles every run that finished in one tick in one statement;
 * one run is arrays of one.
 *
 * $1 now (timestamptz; null = the database's `now()`), $2 ids uuid[], $3 worker_ids text[], $4 claims uuid[]
 * (same length; an id appears at most once).
 *
 * Returns `ord` (1-based position in the arrays) of every item that moved; a missing ord is a settle that did not
 * land (the lease lapsed and the row was re-claimed, or it was cancelled). `j.id = any($2)` makes each row a primary
 * key probe: joined to the unnest alone, the planner hashes every running row for a batch it guesses is 100 long.
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
from unnest($2::uuid[], $3::text[], $4::uuid[]) with ordinality as a(id, worker_id, claim, ord)
cross join clock k
where j.id = any($2::uuid[])
  and j.id = a.id
  and j.state = 'running'
  and j.worker_id = a.worker_id
  and j.claim = a.claim
returning a.ord::int as ord
`;
