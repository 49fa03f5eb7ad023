import { claimOf } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { orderedRequests } from '../../jobs/test/requests';
import { testRedisSpec } from '../test/redis-spec';
import { redisJobDriver } from './redis-driver';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const NAME = 'redis-counter-buckets.job';

const file = testRedisSpec();
const request = orderedRequests({ name: NAME, queue: 'q', input: { n: 1 } });

/**
 * The settle counters on Redis: a settle counts into the 1-minute bucket its clock reading falls in, whatever the
 * second of the minute; a bucket folds into the next tier only once it started a tier's keep or more ago.
 */
describe('the Redis counter buckets', () => {
  it('counts a settle late in a minute into that minute, and folds a bucket only past its keep', async () => {
    // a clock reading 59.999 s into a minute: the bucket is the minute's, not one of its seconds
    const t0 = Date.UTC(2026, 0, 1);
    const clock = frozenClock(t0 + MINUTE - 1);
    const driver = redisJobDriver({
      client: file.redis.client,
      prefix: file.redis.prefix(),
      clock,
    });
    await driver.enqueue(request({ runAt: clock.now() }));
    const [row] = await driver.claim({
      workerId: 'w',
      visibilityTimeoutMs: 30_000,
      slots: [{ queue: 'q', limit: 1 }],
    });
    expect(await driver.ack(row!.id, { ...claimOf(row!), durationMs: 7 })).toBe(true);
    const counters = () => driver.introspect.counters({ job: NAME });
    expect(
      (await counters()).map((b) => [b.bucketMs, b.bucketStart, b.done, b.durationMs]),
    ).toEqual([[MINUTE, t0, 1, 7]]);

    // started exactly a day (the first tier's keep) ago: still kept; a millisecond later, folded into 5 minutes
    await clock.advance(DAY - MINUTE + 1);
    expect(await driver.introspect.rollupCounters()).toBe(0);
    expect((await counters()).map((b) => b.bucketMs)).toEqual([MINUTE]);
    await clock.advance(1);
    expect(await driver.introspect.rollupCounters()).toBe(1);
    expect((await counters()).map((b) => [b.bucketMs, b.bucketStart, b.done])).toEqual([
      [5 * MINUTE, t0, 1],
    ]);
    await driver.close();
  });
});
