import { claimOf, resolveRetention } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { Redis } from 'ioredis';
import { orderedRequests } from '../../jobs/test/requests';
import { createTestRedis, testRedisUrl, type TestRedis } from '../test/test-redis';
import { redisJobDriver } from './redis-driver';

let redis: TestRedis;

beforeAll(() => {
  redis = createTestRedis();
});

afterAll(async () => {
  await redis?.drop();
});

/** A request due at 0 whose ids are minted in the order requests are built, so they sort as they were built. */
const request = orderedRequests({ name: 'redis.job', queue: 'q', input: { n: 1 }, runAt: 0 });
const claimArgs = {
  workerId: 'w',
  visibilityTimeoutMs: 30_000,
  slots: [{ queue: 'q', limit: 10 }],
};

/** The server's clock in epoch ms. */
async function serverNow(client: Redis): Promise<number> {
  const [s, us] = await client.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

describe('redisJobDriver (redis only)', () => {
  it("stamps and compares with the server's TIME when no clock is given", async () => {
    const driver = redisJobDriver({ client: redis.client, prefix: redis.prefix() });
    const before = await serverNow(redis.client);
    const r = request({ runAt: before });
    await driver.enqueue(r);
    const [row] = await driver.claim(claimArgs);
    const after = await serverNow(redis.client);
    expect(row?.id).toBe(r.id);
    expect(row!.createdAt).toBeGreaterThanOrEqual(before);
    expect(row!.createdAt).toBeLessThanOrEqual(after);
    expect(row!.leaseExpiresAt - row!.updatedAt).toBe(30_000);
  });

  it('keeps every key of a deployment under its one hash tag', async () => {
    // a database of its own, so the scan sees this test's keys and nothing else's
    const client = new Redis(testRedisUrl(), { db: 7 });
    try {
      await client.flushdb();
      const driver = redisJobDriver({ client, prefix: 'tagged' });
      await driver.enqueue(request());
      await driver.enqueue(request({ runAt: Date.UTC(2999, 0, 1) }));
      const [row] = await driver.claim(claimArgs);
      await driver.steps.save(row!.id, claimOf(row!), {
        name: 's',
        output: 1,
        attempt: 1,
        startedAt: 0,
        completedAt: 1,
      });
      await driver.ack(row!.id, claimOf(row!));
      await driver.leases.acquire('job:redis.job', 'h', 1, 1_000);
      await driver.workerRegistry!.beat(
        { id: 'w', host: 'h', pid: 1, startedAt: 0, slots: { q: 1 }, inFlight: [] },
        1_000,
      );
      await driver.introspect.pauseQueue('q');
      const keys = await client.keys('*');
      expect(keys.length).toBeGreaterThan(5);
      expect(keys.filter((k) => !k.startsWith('{tagged}:'))).toEqual([]);
    } finally {
      await client.flushdb();
      await client.quit();
    }
  });

  it('re-sends a script the server no longer holds (NOSCRIPT after SCRIPT FLUSH)', async () => {
    const driver = redisJobDriver({ client: redis.client, prefix: redis.prefix() });
    await driver.enqueue(request());
    await redis.client.script('FLUSH');
    expect(await driver.claim(claimArgs)).toHaveLength(1);
  });

  it('refuses a prefix that cannot be a hash tag, and wants exactly one of client and url', () => {
    expect(() => redisJobDriver({ client: redis.client, prefix: 'a{b}' })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
    expect(() => redisJobDriver({ client: redis.client, prefix: '' })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
    expect(() => redisJobDriver({})).toThrow(expect.objectContaining({ code: 'X_INVARIANT' }));
    expect(() => redisJobDriver(undefined as never)).toThrow(
      expect.objectContaining({
        code: 'X_INVARIANT',
        message: expect.stringMatching(/^redisJobDriver: /),
      }),
    );
    expect(() => redisJobDriver({ client: redis.client, url: testRedisUrl() })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
  });

  it('reads a slot limit of Infinity as every due row, and NaN as none', async () => {
    const driver = redisJobDriver({ client: redis.client, prefix: redis.prefix() });
    await driver.enqueueMany([request(), request(), request()]);
    const slot = (limit: number) => ({ ...claimArgs, slots: [{ queue: 'q', limit }] });
    expect(await driver.claim(slot(Number.NaN))).toEqual([]);
    expect(await driver.claim(slot(Number.POSITIVE_INFINITY))).toHaveLength(3);
  });

  it('hands no row to two drivers claiming at once', async () => {
    const prefix = redis.prefix();
    const other = new Redis(testRedisUrl());
    try {
      const a = redisJobDriver({ client: redis.client, prefix });
      const b = redisJobDriver({ client: other, prefix });
      await a.enqueueMany(Array.from({ length: 200 }, () => request()));
      const taken: string[] = [];
      const drain = async (driver: typeof a, workerId: string): Promise<void> => {
        for (;;) {
          const rows = await driver.claim({
            ...claimArgs,
            workerId,
            slots: [{ queue: 'q', limit: 7 }],
          });
          if (rows.length === 0) return;
          taken.push(...rows.map((r) => r.id));
        }
      };
      await Promise.all([drain(a, 'wa'), drain(b, 'wb')]);
      expect(taken).toHaveLength(200);
      expect(new Set(taken).size).toBe(200);
    } finally {
      await other.quit();
    }
  });
});

describe('redisJobDriver retention', () => {
  it('sweeps finished rows past their keep with their steps, in batches, and leaves the rest', async () => {
    const clock = frozenClock();
    const driver = redisJobDriver({ client: redis.client, prefix: redis.prefix(), clock });
    const policy = resolveRetention({ finishedMs: 60_000, deadMs: 120_000, batchSize: 2 });
    const settle = async (how: 'ack' | 'dead'): Promise<string> => {
      const r = request({ runAt: clock.now() });
      await driver.enqueue(r);
      const [row] = await driver.claim({ ...claimArgs, slots: [{ queue: 'q', limit: 1 }] });
      const step = { name: 's', output: 1, attempt: 1, startedAt: 0, completedAt: 1 };
      await driver.steps.save(row!.id, claimOf(row!), step);
      if (how === 'ack') await driver.ack(row!.id, claimOf(row!));
      else await driver.nack(row!.id, { ...claimOf(row!), kind: 'dead', error: 'x' });
      return r.id;
    };
    const done = [await settle('ack'), await settle('ack'), await settle('ack')];
    const dead = await settle('dead');
    const live = request({ runAt: clock.now() + 3_600_000 });
    await driver.enqueue(live);
    await clock.advance(90_000);

    const sweep = async (): Promise<Record<string, number>> => {
      const removed: Record<string, number> = {};
      for (const t of driver.purgeTargets!(policy))
        removed[t.name] = await t.purgeExpired(clock.now());
      return removed;
    };
    expect(await sweep()).toMatchObject({ 'x_jobs:done': 3, 'x_jobs:dead': 0 });
    for (const id of done) {
      expect(await driver.get(id)).toBeUndefined();
      expect(await driver.steps.load(id)).toEqual([]);
    }
    expect((await driver.get(dead))?.state).toBe('dead');
    expect((await driver.get(live.id))?.state).toBe('delayed');
    expect(await driver.stats()).toEqual([
      expect.objectContaining({ queue: 'q', done: 0, dead: 1, delayed: 1 }),
    ]);

    await clock.advance(60_000);
    expect(await sweep()).toMatchObject({ 'x_jobs:done': 0, 'x_jobs:dead': 1 });
    expect(await driver.get(dead)).toBeUndefined();
    expect(await driver.introspect.list()).toEqual([expect.objectContaining({ id: live.id })]);
  });
});

describe('redisJobDriver retention of worker rows', () => {
  it('sweeps the rows of workers that died without a clean stop, and keeps the live ones', async () => {
    const clock = frozenClock();
    const prefix = redis.prefix();
    const driver = redisJobDriver({ client: redis.client, prefix, clock });
    const beat = (id: string) => ({
      id,
      host: 'h',
      pid: 1,
      startedAt: 0,
      slots: { q: 1 },
      inFlight: [],
    });
    await driver.workerRegistry!.beat(beat('killed'), 30_000);
    await clock.advance(60_000);
    await driver.workerRegistry!.beat(beat('alive'), 30_000);

    const swept: Record<string, number> = {};
    for (const t of driver.purgeTargets!(resolveRetention({})))
      swept[t.name] = await t.purgeExpired(clock.now());

    expect(swept['x_workers']).toBe(1);
    expect(await redis.client.hkeys(`{${prefix}}:wk`)).toEqual(['alive']);
  });
});
