import { frozenClock } from '@ultimat3/jobs/testing';
import { orderedRequests } from '../../jobs/test/requests';
import { testRedisSpec } from '../test/redis-spec';
import { redisJobDriver } from './redis-driver';

const file = testRedisSpec();
const request = orderedRequests({ name: 'redis-bulk-due.job', queue: 'q', input: { n: 1 } });

/**
 * The bulk operations on Redis at a delayed row's run time, before any claim promoted it (it still sits in the
 * queue's delayed set): it is due, so promoteMany has nothing to promote, and removeMany counts it once.
 */
describe('the Redis bulk operations on a delayed row at its run time', () => {
  it('promoteMany leaves it as it is, and removeMany removes it leaving none behind', async () => {
    const clock = frozenClock();
    const driver = redisJobDriver({
      client: file.redis.client,
      prefix: file.redis.prefix(),
      clock,
    });
    const row = await driver.enqueue(request({ runAt: clock.now() + 1_000 }));
    await clock.advance(1_000);
    expect(await driver.introspect.promoteMany({ state: 'delayed', queue: 'q' })).toEqual({
      affected: 0,
      remaining: 0,
    });
    expect(await driver.get(row.id)).toMatchObject({ state: 'delayed', runAt: clock.now() });
    expect(await driver.introspect.removeMany({ state: 'delayed', queue: 'q' })).toEqual({
      affected: 1,
      remaining: 0,
    });
    expect(await driver.get(row.id)).toBeUndefined();
    await driver.close();
  });
});
