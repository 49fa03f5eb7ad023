export type { PgExecutor, PgQueryResult } from './executor/pg-executor';
export {
  pgPoolExecutor,
  type PgPoolExecutorOptions,
  type PgQueryable,
} from './executor/pg-pool-executor';
export {
  typeormExecutor,
  type TypeormDataSourceLike,
  type TypeormQueryRunnerLike,
} from './executor/typeorm-executor';
export {
  postgresJobDriver,
  type PostgresJobDriver,
  type PostgresJobDriverOptions,
} from './driver/pg-driver';
export { singleEnqueueParams } from './driver/pg-enqueue-params';
export { migrate, type MigrateOptions } from './migrations/migrate';
export { SQL_JOBS_TABLE } from './migrations/install-script';
export * from './sql';
export { JOBS_MIGRATIONS, type JobsMigration } from './migrations/all-migrations';
export {
  JobsMigration1700000000000,
  type MigrationQueryRunnerLike,
} from './migrations/typeorm-migration';
export { JOBS_TABLES } from './schema';
export * from './outbox';
export {
  startQueueWake,
  WAKE_PROBE_TIMEOUT_MS,
  WAKE_REDIAL_MAX_MS,
  WAKE_REDIAL_MS,
  type QueueWake,
  type OwnChannel,
  type StartQueueWakeOptions,
  type WakeTarget,
} from './wake/queue-wake';
export {
  startWorkerWake,
  type StartWorkerWakeOptions,
  type WorkerWakeTarget,
} from './wake/worker-wake';
export {
  handOffChannel,
  HAND_OFF_LEAVE_MS,
  HAND_OFF_LOCK_CLASS,
  pgHandOff,
  type PgHandOff,
  type PgHandOffOptions,
} from './wake/pg-hand-off';
export { HAND_OFF_RETRY_MS } from './driver/pg-enqueue-hand-off-memo';
export {
  WAKE_CHANNEL,
  WAKE_COMMIT_MARGIN_MS,
  WAKE_DUE_WITHIN_MS,
  WAKE_LOCK_CLASS,
  WAKE_SLOT_MS,
  WAKE_SWEEP_CHANNEL,
  WAKE_SWEEP_MS,
  type WakeListener,
  type WakeNotification,
  type WakeSession,
} from './wake/wake-session';
export * from './scheduler';
export * from './backend';
export * from './events';
export * from './backfill';
export * from './webhook';
