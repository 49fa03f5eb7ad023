import { jobDriverAgreement } from '@ultimat3/jobs/testing';
import { createTestRedis, type TestRedis } from '../test/test-redis';
import { redisJobDriver } from './redis-driver';

let redis: TestRedis;

beforeAll(() => {
  redis = createTestRedis();
});

afterAll(async () => {
  await redis?.drop();
});

// for every generated value, Redis answers what the memory driver answers: the same code, or the same value
jobDriverAgreement('redis', (clock) =>
  redisJobDriver({ client: redis.client, prefix: redis.prefix(), clock }),
);
