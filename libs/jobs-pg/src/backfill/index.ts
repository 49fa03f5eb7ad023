export { postgresBackfillLedger, type PostgresBackfillLedgerOptions } from './pg-backfill-ledger';
