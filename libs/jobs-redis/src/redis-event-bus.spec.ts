import { tenantEventsScenario } from '@ultimat3/jobs/testing';
import { createTestRedis, type TestRedis } from '../test/test-redis';
import { redisEventBus } from './redis-event-bus';

let redis: TestRedis;
beforeAll(() => {
  redis = createTestRedis();
});
afterAll(async () => {
  await redis?.drop();
});

// the event bus conformance (tenancy and values, pages of 2) runs once, from backendConformance in redis-driver.spec.ts

tenantEventsScenario('redis', async () =>
  redisEventBus({ client: redis.client, prefix: redis.prefix() }),
);
