import { backendConformance } from '@ultimat3/jobs/testing';
import { createTestRedis, type TestRedis } from '../test/test-redis';
import { REDIS_CAPABILITIES, redisBackendOver } from './redis-backend';

let redis: TestRedis;

beforeAll(() => {
  redis = createTestRedis();
});

afterAll(async () => {
  await redis?.drop();
});

backendConformance('redis', REDIS_CAPABILITIES, (clock) =>
  redisBackendOver({ client: redis.client, prefix: redis.prefix(), clock }),
);
