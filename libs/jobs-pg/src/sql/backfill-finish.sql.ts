/**
 * Ends a pass: `completed` with its completion time, or `failed` with the error's text (a retry adopts the row and
 * runs it again). A completed row is never rewritten: it is history, and a rerun writes a new row.
 *
 * $1 row id, $2 status ('completed' | 'failed'), $3 rows handled, $4 pages handled, $5 the last cursor (jsonb),
 * $6 now (timestamptz), $7 the error's text (null when completed).
 *
 * Returns nothing; touches one row or none.
 */
export const SQL_BACKFILL_FINISH = `
update x_backfills set
  status = $2::text,
  rows_processed = $3::bigint,
  batches = $4::bigint,
  last_cursor = $5::jsonb,
  updated_at = $6::timestamptz,
  completed_at = case when $2::text = 'completed' then $6::timestamptz else null end,
  last_error = case when $2::text = 'failed' then $7::text else last_error end
where id = $1::uuid and status <> 'completed'
`;
