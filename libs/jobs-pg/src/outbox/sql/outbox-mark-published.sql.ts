/**
 * Retires published rows — FENCED on the claimant: a relay that stalled past its lease, whose rows another relay
 * re-claimed, retires nothing (retiring a row nobody has published yet would lose the job outright). The row stays,
 * with `published_at` and the `claimed_by` that published it, as the audit trail.
 *
 * $1 ids (uuid[]), $2 claimant, $3 now (timestamptz; null = the database's `now()`).
 *
 * Returns nothing; the row count is how many were retired.
 */
export const SQL_OUTBOX_MARK_PUBLISHED = `
update x_outbox o
set published_at = coalesce($3::timestamptz, now()), last_error = null
where o.id = any($1::uuid[])
  and o.claimed_by = $2::text
  and o.published_at is null
`;
