import { claimOf } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { orderedRequests } from '../../jobs/test/requests';
import { testRedisSpec } from '../test/redis-spec';
import { redisJobDriver } from './redis-driver';
import { redisKeyPrefix } from './redis-keys';

const file = testRedisSpec();

/** A request due at 0 whose ids are minted in the order requests are built, so they sort as they were built. */
const request = orderedRequests({ name: 'redis.job', queue: 'q', input: { n: 1 }, runAt: 0 });
const claimArgs = {
  workerId: 'w',
  visibilityTimeoutMs: 30_000,
  slots: [{ queue: 'q', limit: 10 }],
};

describe('redisJobDriver settled rows', () => {
  it("reads a done row's leftover worker, claim and lease as absent, and fences a re-claim of it on the new claim", async () => {
    const prefix = file.redis.prefix();
    const driver = redisJobDriver({ client: file.redis.client, prefix });
    const r = request();
    await driver.enqueue(r);
    const [first] = await driver.claim(claimArgs);
    expect(await driver.ack(first!.id, claimOf(first!))).toBe(true);
    // the ack writes the state alone: the claim's fields stay stored, and no reader answers them
    const stored = await file.redis.client.hmget(
      `${redisKeyPrefix(prefix)}j:${r.id}`,
      'st',
      'w',
      'c',
    );
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

describe('redisJobDriver rows as they are read', () => {
  it('a claimed row reads as the row itself: absent fields null, empty text kept, a NUL written around it kept', async () => {
    const prefix = file.redis.prefix();
    const driver = redisJobDriver({ client: file.redis.client, prefix, clock: frozenClock() });
    const plain = request({
      runAt: 0,
      concurrencyKey: 'ck',
      input: { s: 'a\u0000b', n: [1, null] },
    });
    const odd = request({ runAt: 1, enqueuedBy: 'someone' });
    await driver.enqueueMany([plain, odd]);
    // written around the driver: a NUL in a value (the row cannot travel packed) and a present empty text
    await file.redis.client.hset(`{${prefix}}:j:${odd.id}`, 'by', 'x\u0000y', 'tp', '');

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
    const prefix = file.redis.prefix();
    const driver = redisJobDriver({ client: file.redis.client, prefix, clock: frozenClock() });
    const damaged = request({ runAt: 0 });
    const good = request({ runAt: 1 });
    await driver.enqueueMany([damaged, good]);
    // written around the driver: text no JSON.parse reads
    await file.redis.client.hset(`{${prefix}}:j:${damaged.id}`, 'input', '{"n": corrupt');

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
    await file.redis.client.hset(`{${prefix}}:j:${good.id}`, 'pg', 'not json');
    expect((await driver.get(good.id))?.progress).toBeNull();
  });
});
