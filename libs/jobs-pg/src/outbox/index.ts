export { postgresOutboxStore, type PostgresOutboxStoreOptions } from './pg-outbox-store';
export { typeormTxExecutor } from './typeorm-tx-executor';
export { OUTBOX_WAKE_CHANNEL } from './wake-channel';
export {
  startOutboxWake,
  OUTBOX_WAKE_CONNECT_TIMEOUT_MS,
  type OutboxWakeSource,
} from './pg-outbox-wake';
export { SQL_OUTBOX_BACKLOG } from './sql/outbox-backlog.sql';
export { SQL_OUTBOX_CLAIM } from './sql/outbox-claim.sql';
export { SQL_OUTBOX_MARK_PUBLISHED } from './sql/outbox-mark-published.sql';
export { SQL_OUTBOX_QUARANTINE } from './sql/outbox-quarantine.sql';
export { SQL_OUTBOX_QUARANTINED } from './sql/outbox-quarantined.sql';
export { SQL_OUTBOX_RELEASE } from './sql/outbox-release.sql';
export { SQL_OUTBOX_RESTORE } from './sql/outbox-restore.sql';
export { SQL_OUTBOX_RETAINED } from './sql/outbox-retained.sql';
export { SQL_OUTBOX_STAGE } from './sql/outbox-stage.sql';
export { SQL_OUTBOX_STAGE_MANY } from './sql/outbox-stage-many.sql';
