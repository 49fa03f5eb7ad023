import { frozenClock, runJobs, type FrozenClock, type JobsHarness } from '@ultimat3/jobs/testing';
import { Redis } from 'ioredis';
import { startThrowawayRedis, type ThrowawayRedis } from '../../../scripts/throwaway-redis.mjs';
import { until } from '../../../test/until';
import { countingJob, io, wakeSlots } from '../test/redis-spec';
import { redisBackend } from './redis-backend';
import { redisJobDriver, type RedisJobDriver } from './redis-driver';

// A server of its own: INFO commandstats counts every client of the server, so no other test file may share it.
let server: ThrowawayRedis;
let client: Redis;
beforeAll(async () => {
  server = await startThrowawayRedis({ name: 'jobs-redis-wake-spec' });
  client = new Redis(server.url);
});
afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

const { job: wakeJob, ran, request } = countingJob('redis-wake.noop', 'wake-q');

/** Every command the server ran (those inside scripts included), INFO itself left out. */
async function commandsRun(): Promise<number> {
  const info = await client.info('commandstats');
  let sum = 0;
  for (const [, name, n] of info.matchAll(/^cmdstat_([\w|]+):calls=(\d+)/gm)) {
    if (name !== 'info') sum += Number(n);
  }
  return sum;
}

describe('the Redis wake', () => {
  const open = wakeSlots();

  async function start(
    prefix: string,
    before?: (other: RedisJobDriver, clock: FrozenClock) => Promise<void>,
  ): Promise<JobsHarness> {
    const clock = frozenClock();
    // another process's driver: no wake of its own, its enqueues reach the worker only through the channel
    const other = redisJobDriver({ url: server.url, prefix, clock });
    open.other = other;
    await before?.(other, clock);
    const backend = await redisBackend({ client, prefix, clock });
    open.backend = backend;
    const h = await runJobs({
      jobs: [wakeJob],
      driver: backend.driver,
      clock,
      installFacade: false,
    });
    open.h = h;
    open.stopWake = backend.startWake(h.worker).stop;
    const worker = h.worker;
    await until(() => worker.stats().wakeLive);
    return h;
  }

  it('an idle worker minute (driven clock) costs at most 12 server commands, presence beats included', async () => {
    const harness = await start('idle');
    for (let s = 0; s < 5; s++) {
      await harness.advance(1_000);
      await io();
    }
    const before = await commandsRun();
    for (let s = 0; s < 60; s++) {
      await harness.advance(1_000);
      await io();
    }
    const used = (await commandsRun()) - before;
    expect(used).toBeGreaterThan(0); // the presence beats still land
    expect(used).toBeLessThanOrEqual(12);
  });

  it("runs another process's enqueue through the wake, and a delayed row once its time comes", async () => {
    const harness = await start('pickup');
    await harness.advance(10_000);
    await io();
    const now = harness.clock.now();
    await open.other!.enqueue(request(1, now));
    await until(() => ran.includes(1));

    await open.other!.enqueue(request(2, now + 30_000));
    await io();
    await harness.advance(29_000);
    await io();
    expect(ran).not.toContain(2);
    await harness.advance(1_000);
    await until(async () => {
      await harness.advance(100);
      return ran.includes(2);
    });
    // the driver's claims are answered empty without Redis only while nothing was announced and nothing fell due
    expect(open.backend!.driver.wake.live).toBe(true);
  });

  it("rescues a dead worker's lapsed lease when it lapses, with nothing announced meanwhile", async () => {
    const harness = await start('rescue', async (o, clock) => {
      await o.enqueue(request(3, clock.now()));
      const [held] = await o.claim({
        workerId: 'dead-worker',
        visibilityTimeoutMs: 30_000,
        slots: [{ queue: 'wake-q', limit: 1 }],
      });
      expect(held?.input).toEqual({ n: 3 });
    });
    for (let s = 0; s < 29; s++) {
      await harness.advance(1_000);
      await io();
    }
    expect(ran).not.toContain(3);
    await until(async () => {
      await harness.advance(500);
      return ran.includes(3);
    });
  });

  it('a probe that does not come back in time makes the wake not live, until one does', async () => {
    const harness = await start('reprobe');
    const worker = harness.worker;
    // writes (SPUBLISH among them) wait while the server is paused: the next probe cannot come back. Paused and
    // unpaused from a connection of its own: the driver's connection holds paused writes, and answers in order
    const admin = new Redis(server.url);
    await admin.call('CLIENT', 'PAUSE', '30000', 'WRITE');
    try {
      await harness.advance(60_000);
      await io();
      expect(worker.stats().wakeLive).toBe(true);
      await harness.advance(5_000);
      expect(worker.stats().wakeLive).toBe(false);
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
      admin.disconnect();
    }
    await until(() => worker.stats().wakeLive);
  });
});
