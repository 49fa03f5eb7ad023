/**
 * Migration 0006: the indexes the retention sweep walks, so every purge batch is an ordered range scan that stops at
 * its limit — never a scan of the table, never an unbounded delete.
 *
 * - `x_jobs_finished_idx` (state, finished_at, id) over finished rows: one purge batch per state takes the oldest rows
 *   past that state's retention, continuing after the last key of the batch before (keyset), so a batch never steps
 *   over the entries earlier batches left dead. Live rows are not in it at all.
 * - `x_outbox_published_idx` (published_at, id) over published rows: the same for the outbox's audit trail.
 * - `x_job_counters_tier_idx` (bucket_ms, bucket_start): the buckets past their tier, for `rollupCounters()` and the
 *   sweep of the last tier.
 *
 * Building an index locks its table against writes while it builds: on a large `x_jobs`, apply it at a quiet moment
 * (or create the index `concurrently` by hand first under the same name; `if not exists` then skips it).
 */
export const MIGRATION_0006_RETENTION = `
create index if not exists x_jobs_finished_idx
  on x_jobs (state, finished_at, id)
  where state in ('done', 'failed', 'dead', 'cancelled');
create index if not exists x_outbox_published_idx
  on x_outbox (published_at, id)
  where published_at is not null;
create index if not exists x_job_counters_tier_idx
  on x_job_counters (bucket_ms, bucket_start);
`;
