export { redisJobDriver } from './redis-driver';
export { redisKeyPrefix } from './redis-keys';
export { redisEventBus, type RedisEventBusOptions } from './redis-event-bus';
export { redisBackfillLedger, type RedisBackfillLedgerOptions } from './redis-backfill-ledger';
export type { RedisJobDriver, RedisJobDriverOptions } from './redis-driver';
export {
  redisBackend,
  redisBackendOver,
  REDIS_CAPABILITIES,
  type RedisBackend,
  type RedisBackendOptions,
} from './redis-backend';
export type { RedisConnectionOptions } from './redis-client';
export type { RedisWake, RedisWakeListener, WakeMark } from './redis-wake';
