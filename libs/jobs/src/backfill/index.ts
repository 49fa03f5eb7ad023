export { backfillPass } from './backfill-pass';
export { backfillChecksum } from './checksum';
export {
  defaultBackfillEnvironment,
  type BackfillRuntime,
  type ResolvedBackfillRuntime,
} from './backfill-runtime';
export {
  readKeysetPage,
  type BackfillSource,
  type KeysetColumnLike,
  type KeysetCursor,
  type KeysetPage,
  type RepositoryLike,
  type RepositorySource,
  type SelectQueryLike,
} from './keyset-source';
export * from './ledger';
export { clampBackfillListLimit, MAX_BACKFILL_LIST_LIMIT } from './ledger-order';
export { memoryBackfillLedger } from './memory-ledger';
export { backfillOf, isBackfill, registeredBackfills } from './registry';
export type { ResolvedBackfill } from './resolved';
export { DEFAULT_BACKFILL_RATE, throttleWaitMs } from './throttle';
export * from './pending';
export * from './inspect';
export { readAppliedMigrations, type MigrationsSourceLike } from './migrations-table';
export { backfillsHealth, type BackfillsHealth } from './health-check';
export { checkedCount, countBackfill } from './count';
