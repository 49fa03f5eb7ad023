/**
 * The relay's backlog: staged rows not yet published (claimed or not). Published rows are the audit trail and
 * quarantined rows the operator's (`SQL_OUTBOX_QUARANTINED`), not backlog.
 *
 * Returns one row `(n)`.
 */
export const SQL_OUTBOX_RETAINED = `
select count(*)::int as n from x_outbox where published_at is null and quarantined_at is null
`;
