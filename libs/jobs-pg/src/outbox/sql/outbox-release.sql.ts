/**
 * Hands claimed rows back at once (a failed publish stopped the batch, or the relay is draining) — FENCED on the
 * claimant: a relay that stalled past its lease cannot unclaim rows the relay that re-claimed them is publishing.
 * The row whose publish failed ($3) counts an attempt and keeps the error ($4) for the operator.
 *
 * $1 ids (uuid[]), $2 claimant, $3 failed id (uuid or null), $4 error text (or null).
 *
 * Returns nothing; the row count is how many were released.
 */
export const SQL_OUTBOX_RELEASE = `
update x_outbox o
set claimed_by = null,
    claimed_at = null,
    attempts = o.attempts + (case when o.id = $3::uuid then 1 else 0 end),
    last_error = case when o.id = $3::uuid then $4::text else o.last_error end
where o.id = any($1::uuid[])
  and o.claimed_by = $2::text
  and o.published_at is null
`;
