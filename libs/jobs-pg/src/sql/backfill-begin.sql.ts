/**
 * Starts the ledger row of a backfill pass, or answers the row its job already holds: a retry adopts its own row
 * (`x_backfills_job_idx` is unique on `job_id`), a failed row is running again under the retry's run id, and
 * `started_at` stays when the pass began. A completed row is answered as it is.
 *
 * $1 id (uuid, used only when inserting), $2 name, $3 checksum, $4 app version (null: unknown), $5 job id,
 * $6 run id, $7 now (timestamptz, the pass's clock).
 *
 * Returns the row as it now stands.
 */
export const SQL_BACKFILL_BEGIN = `
insert into x_backfills as b (id, name, checksum, status, app_version, job_id, run_id, started_at, updated_at)
values ($1::uuid, $2::text, $3::text, 'running', $4::text, $5::uuid, $6::uuid, $7::timestamptz, $7::timestamptz)
on conflict (job_id) where job_id is not null do update set
  status = case when b.status = 'failed' then 'running' else b.status end,
  run_id = case when b.status = 'failed' then excluded.run_id else b.run_id end,
  updated_at = case when b.status = 'failed' then excluded.updated_at else b.updated_at end
returning b.*
`;
