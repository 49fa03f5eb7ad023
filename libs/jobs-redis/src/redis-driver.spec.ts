import { jobDriverConformance, schedulerStateConformance } from '@ultimat3/jobs/testing';
import { createTestRedis, type TestRedis } from '../test/test-redis';
import { redisJobDriver } from './redis-driver';

let redis: TestRedis;

beforeAll(() => {
  redis = createTestRedis();
});

afterAll(async () => {
  await redis?.drop();
});

jobDriverConformance('redis', (clock) =>
  redisJobDriver({ client: redis.client, prefix: redis.prefix(), clock }),
);

schedulerStateConformance('redis', (clock) => {
  const driver = redisJobDriver({ client: redis.client, prefix: redis.prefix(), clock });
  return { state: driver.schedulerState, driver };
});
