/**
 * The ledger row of the pass a job runs (`x_backfills_job_idx`).
 *
 * $1 job id (uuid).
 *
 * Returns the row, or none.
 */
export const SQL_BACKFILL_BY_JOB = `
select * from x_backfills where job_id = $1::uuid
`;
