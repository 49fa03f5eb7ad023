/**
 * Migration 0002: the transaction each outbox row was staged in. A claim reads it so it never hands out a
 * transaction's later rows while an earlier one is unpublished and held by another relay (or locked by a concurrent
 * claim): two relays then cannot publish `createInvoice` and `chargeCard` of one transaction out of order. Nullable,
 * so adding it rewrites nothing; a row staged before it is its own transaction.
 */
export const MIGRATION_0002_OUTBOX = `
alter table x_outbox add column tx_id xid8;                -- pg_current_xact_id() of the staging transaction

-- the claim's "an earlier row of this transaction is still unpublished" probe
create index x_outbox_tx_idx on x_outbox (tx_id, staged_at, id) where published_at is null;
`;
