import { backendConformance } from '@ultimat3/jobs/testing';
import { createTestRedis, type TestRedis } from '../test/test-redis';
import { REDIS_CAPABILITIES, redisBackendOver } from './redis-backend';
import { redisEventBus } from './redis-event-bus';

let redis: TestRedis;

beforeAll(() => {
  redis = createTestRedis();
});

afterAll(async () => {
  await redis?.drop();
});

// The event bus conformance runs here (declared events), and only here: its bus reads pages of 2 events, so a lookup
// that walks past refused or other tenants' events crosses pages
backendConformance('redis', REDIS_CAPABILITIES, (clock) => {
  const prefix = redis.prefix();
  const backend = redisBackendOver({ client: redis.client, prefix, clock });
  return {
    ...backend,
    events: redisEventBus({ client: redis.client, prefix, clock, pageSize: 2 }),
  };
});
