import { backfillLedgerConformance } from '@ultimat3/jobs/testing';
import { createTestRedis, type TestRedis } from '../test/test-redis';
import { redisBackfillLedger } from './redis-backfill-ledger';

let redis: TestRedis;
beforeAll(() => {
  redis = createTestRedis();
});
afterAll(async () => {
  await redis?.drop();
});

// a deployment name of its own per test: the suite runs each case over an EMPTY ledger
backfillLedgerConformance('redis', async () => ({
  ledger: redisBackfillLedger({ client: redis.client, prefix: redis.prefix() }),
}));
