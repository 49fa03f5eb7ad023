/**
 * The operator's listing: quarantined rows still unpublished, oldest quarantine first (a transaction's rows in the
 * order it staged them), at most $1, read through `x_outbox_quarantined_idx`.
 *
 * $1 limit.
 *
 * Returns `(id, request, staged_at, quarantined_at, quarantine_code, attempts, last_error)` per row.
 */
export const SQL_OUTBOX_QUARANTINED = `
select o.id, o.request, o.staged_at, o.quarantined_at, o.quarantine_code, o.attempts, o.last_error
from x_outbox o
where o.published_at is null
  and o.quarantined_at is not null
order by o.quarantined_at, o.staged_at, o.id
limit $1::int
`;
