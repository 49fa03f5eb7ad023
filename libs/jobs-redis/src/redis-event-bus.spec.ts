import {
  eventBusTenancyConformance,
  eventBusValuesConformance,
  tenantEventsScenario,
} from '@ultimat3/jobs/testing';
import { createTestRedis, type TestRedis } from '../test/test-redis';
import { redisEventBus } from './redis-event-bus';

let redis: TestRedis;
beforeAll(() => {
  redis = createTestRedis();
});
afterAll(async () => {
  await redis?.drop();
});

// a small page, so a lookup that walks past refused or other tenants' events crosses pages
eventBusTenancyConformance('redis', async () => ({
  bus: redisEventBus({ client: redis.client, prefix: redis.prefix(), pageSize: 2 }),
}));

eventBusValuesConformance('redis', async () => ({
  bus: redisEventBus({ client: redis.client, prefix: redis.prefix(), pageSize: 2 }),
}));

tenantEventsScenario('redis', async () =>
  redisEventBus({ client: redis.client, prefix: redis.prefix() }),
);
