/**
 * The relay's backlog in one read (`OutboxStore.backlog()`): how many staged rows are not yet published (claimed or
 * not; quarantined rows are the operator's, not backlog) and the staging time and age of the oldest of them.
 *
 * The age is measured on the clock that stamped `staged_at` (`clock_timestamp()`, see `SQL_OUTBOX_STAGE`), so a skew
 * between an app and the database never reads as lag. Both aggregates walk `x_outbox_claim_idx`, whose predicate is
 * this statement's: the backlog's entries only, never the published audit trail.
 *
 * Returns one row `(n, oldest_staged_at, oldest_age_ms)`: the times as epoch ms / ms (float8), null / 0 when empty.
 */
export const SQL_OUTBOX_BACKLOG = `
select count(*)::int as n,
  floor(extract(epoch from min(o.staged_at)) * 1000)::float8 as oldest_staged_at,
  coalesce(greatest(0, extract(epoch from clock_timestamp() - min(o.staged_at)) * 1000), 0)::float8 as oldest_age_ms
from x_outbox o
where o.published_at is null and o.quarantined_at is null
`;
