/**
 * Records how far a running pass got, after each page. A finished row is left as it is: a late write of an attempt
 * that lost its lease must not move a completed report backwards.
 *
 * $1 row id, $2 rows handled, $3 pages handled, $4 the cursor after the last page (jsonb), $5 now (timestamptz).
 *
 * Returns nothing; touches one row or none.
 */
export const SQL_BACKFILL_PROGRESS = `
update x_backfills set
  rows_processed = $2::bigint,
  batches = $3::bigint,
  last_cursor = $4::jsonb,
  updated_at = $5::timestamptz
where id = $1::uuid and status = 'running'
`;
