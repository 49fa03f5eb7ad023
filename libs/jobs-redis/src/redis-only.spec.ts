import { claimOf, resolveRetention } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { Redis } from 'ioredis';
import { startThrowawayRedis } from '../../../scripts/throwaway-redis.mjs';
import { orderedRequests } from '../../jobs/test/requests';
import { createTestRedis, testRedisUrl, type TestRedis } from '../test/test-redis';
import { redisJobDriver } from './redis-driver';
import { redisKeyPrefix } from './redis-keys';

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

/** Resolves at the client's next `event` (ioredis connection events), whatever the clock. */
const next = (client: Redis, event: 'ready' | 'reconnecting'): Promise<void> =>
  new Promise((resolve) => client.once(event, () => resolve()));

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

describe('redisJobDriver settled rows', () => {
  it("reads a done row's leftover worker, claim and lease as absent, and fences a re-claim of it on the new claim", async () => {
    const prefix = redis.prefix();
    const driver = redisJobDriver({ client: redis.client, prefix });
    const r = request();
    await driver.enqueue(r);
    const [first] = await driver.claim(claimArgs);
    expect(await driver.ack(first!.id, claimOf(first!))).toBe(true);
    // the ack writes the state alone: the claim's fields stay stored, and no reader answers them
    const stored = await redis.client.hmget(`${redisKeyPrefix(prefix)}j:${r.id}`, 'st', 'w', 'c');
    expect(stored).toEqual(['done', 'w', first!.claim]);
    expect(await driver.get(r.id)).toMatchObject({
      state: 'done',
      workerId: null,
      claim: null,
      leaseExpiresAt: null,
    });
    expect(await driver.introspect.list({ queue: 'q' })).toEqual([
      expect.objectContaining({ id: r.id, workerId: null, claim: null, leaseExpiresAt: null }),
    ]);
    // requeued, it reads waiting with no claim; claimed again, only the new claim settles it
    expect(await driver.introspect.requeue(r.id)).toMatchObject({ state: 'ready', claim: null });
    const [second] = await driver.claim(claimArgs);
    expect(second).toMatchObject({ id: r.id, attempt: 1, workerId: 'w' });
    expect(second!.claim).not.toBe(first!.claim);
    expect(await driver.ack(r.id, claimOf(first!))).toBe(false);
    expect(await driver.heartbeat(r.id, claimOf(first!), 30_000)).toBe(false);
    expect(await driver.ack(r.id, claimOf(second!))).toBe(true);
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

  it('a claimed row reads as the row itself: absent fields null, empty text kept, a NUL written around it kept', async () => {
    const prefix = redis.prefix();
    const driver = redisJobDriver({ client: redis.client, prefix, clock: frozenClock() });
    const plain = request({
      runAt: 0,
      concurrencyKey: 'ck',
      input: { s: 'a\u0000b', n: [1, null] },
    });
    const odd = request({ runAt: 1, enqueuedBy: 'someone' });
    await driver.enqueueMany([plain, odd]);
    // written around the driver: a NUL in a value (the row cannot travel packed) and a present empty text
    await redis.client.hset(`{${prefix}}:j:${odd.id}`, 'by', 'x\u0000y', 'tp', '');

    const claimed = await driver.claim(claimArgs);
    expect(claimed.map((row) => row.id)).toEqual([plain.id, odd.id]);
    expect(claimed[0]).toEqual(await driver.get(plain.id));
    expect(claimed[0]).toMatchObject({
      input: { s: 'a\u0000b', n: [1, null] },
      concurrencyKey: 'ck',
      traceparent: null,
      tenantId: null,
      state: 'running',
      attempt: 1,
    });
    expect(claimed[1]).toEqual(await driver.get(odd.id));
    expect(claimed[1]).toMatchObject({ enqueuedBy: 'x\u0000y', traceparent: '', state: 'running' });
  });

  it('a row whose stored input is not JSON text is buried by the claim, never handed out, and still reads', async () => {
    const prefix = redis.prefix();
    const driver = redisJobDriver({ client: redis.client, prefix, clock: frozenClock() });
    const damaged = request({ runAt: 0 });
    const good = request({ runAt: 1 });
    await driver.enqueueMany([damaged, good]);
    // written around the driver: text no JSON.parse reads
    await redis.client.hset(`{${prefix}}:j:${damaged.id}`, 'input', '{"n": corrupt');

    // the row reads, its input answered as the text held, for an operator to see and remove
    expect((await driver.get(damaged.id))?.input).toBe('{"n": corrupt');
    expect((await driver.introspect.list()).map((row) => row.id).sort()).toEqual(
      [damaged.id, good.id].sort(),
    );
    // the claim hands out the good row and buries the damaged one, instead of failing as a whole
    const claimed = await driver.claim(claimArgs);
    expect(claimed.map((row) => row.id)).toEqual([good.id]);
    expect(await driver.get(damaged.id)).toMatchObject({
      state: 'dead',
      claim: null,
      lastError: 'X_JOB_INPUT_INVALID: the stored input of job redis.job is not JSON text',
    });
    // a damaged progress reads as none
    await redis.client.hset(`{${prefix}}:j:${good.id}`, 'pg', 'not json');
    expect((await driver.get(good.id))?.progress).toBeNull();
  });
});
