import {
  claimOf,
  memoryOutboxStore,
  OUTBOX_PUBLISH_ATTEMPTS,
  outboxRelay,
  recordingLogger,
} from '@ultimat3/jobs';
import { Redis } from 'ioredis';
import { startThrowawayRedis } from '../../../scripts/throwaway-redis.mjs';
import { orderedRequests } from '../../jobs/test/requests';
import { redisJobDriver } from './redis-driver';

/** A request due at 0 whose ids are minted in the order requests are built, so they sort as they were built. */
const request = orderedRequests({ name: 'redis.job', queue: 'q', input: { n: 1 }, runAt: 0 });
const claimArgs = {
  workerId: 'w',
  visibilityTimeoutMs: 30_000,
  slots: [{ queue: 'q', limit: 10 }],
};

/** Resolves at the client's next `event` (ioredis connection events), whatever the clock. */
const next = (client: Redis, event: 'ready' | 'reconnecting'): Promise<void> =>
  new Promise((resolve) => client.once(event, () => resolve()));

describe('redisJobDriver against a server of its own', () => {
  it('refuses a server that may evict keys, naming the fix', async () => {
    const server = await startThrowawayRedis({ name: 'jobs-redis-evict' });
    const client = new Redis(server.url);
    try {
      await client.config('SET', 'maxmemory-policy', 'allkeys-lru');
      const driver = redisJobDriver({ client, prefix: 'evict' });
      await expect(driver.enqueue(request())).rejects.toMatchObject({
        code: 'X_REDIS_EVICTION_POLICY',
        fix: expect.stringContaining('CONFIG SET maxmemory-policy noeviction'),
        meta: { maxmemoryPolicy: 'allkeys-lru' },
      });
      await expect(driver.claim(claimArgs)).rejects.toMatchObject({
        code: 'X_REDIS_EVICTION_POLICY',
      });
    } finally {
      await client.quit();
      await server.stop();
    }
  });

  it('is X_DRIVER_UNAVAILABLE on enqueue while Redis is down, and resumes by itself after a restart (AOF)', async () => {
    let server = await startThrowawayRedis({ name: 'jobs-redis-restart', aof: true });
    const client = new Redis(server.url, { retryStrategy: () => 50 });
    try {
      const driver = redisJobDriver({ client, prefix: 'restart' });
      const kept = request();
      await driver.enqueue(kept);

      const down = next(client, 'reconnecting');
      await server.stop({ keepDir: true });
      await down;
      await expect(driver.enqueue(request())).rejects.toMatchObject({
        code: 'X_DRIVER_UNAVAILABLE',
      });

      const up = next(client, 'ready');
      server = await startThrowawayRedis({ aof: true, port: server.port, dir: server.dir });
      await up;
      const [row] = await driver.claim(claimArgs);
      expect(row?.id).toBe(kept.id);
      expect(await driver.ack(row!.id, claimOf(row!))).toBe(true);
      const again = request();
      expect(await driver.enqueue(again)).toEqual({
        id: again.id,
        runId: again.runId,
        deduped: false,
      });
    } finally {
      client.disconnect();
      await server.stop();
    }
  });

  it('is X_DRIVER_UNAVAILABLE on an enqueue the server refuses for its own state (OOM, READONLY), nothing written', async () => {
    const server = await startThrowawayRedis({ name: 'jobs-redis-refusals' });
    const client = new Redis(server.url);
    try {
      const driver = redisJobDriver({ client, prefix: 'refusals' });
      await driver.enqueue(request()); // the boot's checks, while the server takes writes
      const refused = request();
      // maxmemory reached under noeviction: every write is OOM; then a replica (a failover): every write is READONLY
      await client.config('SET', 'maxmemory', '1');
      await expect(driver.enqueue(refused)).rejects.toMatchObject({
        code: 'X_DRIVER_UNAVAILABLE',
        message: expect.stringContaining('Redis refused the write (OOM'),
      });
      await expect(driver.enqueueMany([refused])).rejects.toMatchObject({
        code: 'X_DRIVER_UNAVAILABLE',
      });
      // an outbox relay publishing onto it meets an outage, charged to no row: past its tries, nothing is quarantined
      const store = memoryOutboxStore();
      await store.stage(refused, {});
      const relay = outboxRelay({ store, driver, logger: recordingLogger() });
      for (let pass = 0; pass <= OUTBOX_PUBLISH_ATTEMPTS; pass++) {
        expect(await relay.runOnce()).toMatchObject({ outage: true, quarantined: 0 });
      }
      await relay.stop();
      expect(await store.quarantined()).toEqual([]);
      await client.config('SET', 'maxmemory', '0');
      await client.replicaof('127.0.0.1', 1);
      await expect(driver.enqueue(refused)).rejects.toMatchObject({
        code: 'X_DRIVER_UNAVAILABLE',
        message: expect.stringContaining('Redis refused the write (READONLY'),
      });
      expect(await driver.get(refused.id)).toBeUndefined();
      await client.replicaof('NO', 'ONE');
      expect(await driver.enqueue(refused)).toMatchObject({ id: refused.id, deduped: false });
    } finally {
      client.disconnect();
      await server.stop();
    }
  });

  it('fails a batch of acks the server refuses for its own state (READONLY) as X_DRIVER_UNAVAILABLE, nothing settled', async () => {
    const server = await startThrowawayRedis({ name: 'jobs-redis-ack-refused' });
    const client = new Redis(server.url);
    try {
      const driver = redisJobDriver({ client, prefix: 'ackrefused' });
      const job = request();
      await driver.enqueue(job);
      const [row] = await driver.claim(claimArgs);
      const items = [{ jobId: row!.id, ...claimOf(row!), durationMs: 1 }];
      // a failover left the client on a replica: the worker's batch fails coded (each run sends its ack again while
      // its lease lasts), not as a raw reply error the batcher would resend ack by ack
      await client.replicaof('127.0.0.1', 1);
      await expect(driver.ackMany!(items)).rejects.toMatchObject({
        code: 'X_DRIVER_UNAVAILABLE',
        message: expect.stringContaining('READONLY'),
      });
      await client.replicaof('NO', 'ONE');
      expect((await driver.get(job.id))?.state).toBe('running');
      expect(await driver.ackMany!(items)).toEqual([true]);
      expect((await driver.get(job.id))?.state).toBe('done');
    } finally {
      client.disconnect();
      await server.stop();
    }
  });
});
