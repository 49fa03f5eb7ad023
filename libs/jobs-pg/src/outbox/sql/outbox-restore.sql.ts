/**
 * Puts quarantined rows back in the claim, attempts reset (the operator fixed the cause). Unclaimed and unpublished
 * already, so nothing else changes; the claim keeps holding a row back while an earlier row of its transaction stays
 * quarantined. `last_error` is kept until the row publishes.
 *
 * $1 ids (uuid[]).
 *
 * Returns nothing; the row count is how many were restored.
 */
export const SQL_OUTBOX_RESTORE = `
update x_outbox o
set quarantined_at = null,
    quarantine_code = null,
    attempts = 0
where o.id = any($1::uuid[])
  and o.published_at is null
  and o.quarantined_at is not null
`;
