export { redisJobDriver, redisKeyPrefix } from './redis-driver';
export type { RedisJobDriver, RedisJobDriverOptions } from './redis-driver';
export { nackOutcome, type NackOutcome } from './redis-settle';
