import { frozenClock } from '@ultimat3/jobs/testing';
import { testRedisSpec } from '../test/redis-spec';
import { redisJobDriver } from './redis-driver';

const VT = 10_000;

const file = testRedisSpec();

/**
 * The Redis worker registry skips a beat that repeats the last one it wrote, but only until half the visibility
 * timeout has passed since that write: an idle worker's presence costs half the writes, and its row never lapses
 * while it keeps beating.
 */
describe('the Redis worker registry, beating the same beat', () => {
  it('writes a repeated beat again once half the timeout passed, so the worker stays listed', async () => {
    const clock = frozenClock();
    const t0 = clock.now();
    const driver = redisJobDriver({
      client: file.redis.client,
      prefix: file.redis.prefix(),
      clock,
    });
    const registry = driver.workerRegistry!;
    const beat = { id: 'w', host: 'h', pid: 1, startedAt: t0, slots: { q: 1 }, inFlight: [] };
    const listed = async () =>
      (await driver.introspect.workers()).map((w) => [w.id, w.heartbeatAt, w.expiresAt]);
    await registry.beat(beat, VT);
    await clock.advance(VT / 2 - 1);
    // the same beat, sooner than half the timeout after the write: not written again
    await registry.beat(beat, VT);
    expect(await listed()).toEqual([['w', t0, t0 + VT]]);
    await clock.advance(1);
    await registry.beat(beat, VT);
    expect(await listed()).toEqual([['w', t0 + VT / 2, t0 + VT / 2 + VT]]);
    // past the first write's expiry, still listed: the second write holds it
    await clock.advance(VT - 1);
    expect(await listed()).toEqual([['w', t0 + VT / 2, t0 + VT / 2 + VT]]);
    await driver.close();
  });
});
