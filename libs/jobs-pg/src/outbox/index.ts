export { postgresOutboxStore, type PostgresOutboxStoreOptions } from './pg-outbox-store';
export { typeormTxExecutor } from './typeorm-tx-executor';
export { OUTBOX_WAKE_CHANNEL } from './wake-channel';
