import { claimOf } from '@ultimat3/jobs';
import { Redis } from 'ioredis';
import { startThrowawayRedis } from '../../../scripts/throwaway-redis.mjs';
import { orderedRequests } from '../../jobs/test/requests';
import { redisBackendOver } from './redis-backend';
import { redisJobDriver } from './redis-driver';

const request = orderedRequests({ name: 'redis.job', queue: 'q', input: { n: 1 }, runAt: 0 });
const claimArgs = {
  workerId: 'w',
  visibilityTimeoutMs: 30_000,
  slots: [{ queue: 'q', limit: 10 }],
};

describe('the eviction-policy refusal of a running driver', () => {
  it('lifts once the operator runs the fix it names (CONFIG SET maxmemory-policy noeviction): no restart needed', async () => {
    const server = await startThrowawayRedis({ name: 'jobs-redis-evict-fix' });
    const client = new Redis(server.url);
    try {
      await client.config('SET', 'maxmemory-policy', 'volatile-lru');
      const driver = redisJobDriver({ client, prefix: 'evict-fix' });
      const events = redisBackendOver({ client, prefix: 'evict-fix' }).events;
      await expect(driver.enqueue(request())).rejects.toMatchObject({
        code: 'X_REDIS_EVICTION_POLICY',
      });
      await expect(driver.claim(claimArgs)).rejects.toMatchObject({
        code: 'X_REDIS_EVICTION_POLICY',
      });
      await expect(events.publish('e', { n: 1 })).rejects.toMatchObject({
        code: 'X_REDIS_EVICTION_POLICY',
      });

      // the fix the error names, run while the driver (a worker's, polling) keeps running
      await client.config('SET', 'maxmemory-policy', 'noeviction');

      const kept = request();
      expect(await driver.enqueue(kept)).toEqual({
        id: kept.id,
        runId: kept.runId,
        deduped: false,
      });
      const [row] = await driver.claim(claimArgs);
      expect(row?.id).toBe(kept.id);
      expect(await driver.ack(row!.id, claimOf(row!))).toBe(true);
      await expect(events.publish('e', { n: 2 })).resolves.toMatchObject({ name: 'e' });
    } finally {
      await client.quit();
      await server.stop();
    }
  });
});
