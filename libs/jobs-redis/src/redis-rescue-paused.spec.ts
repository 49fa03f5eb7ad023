import { frozenClock } from '@ultimat3/jobs/testing';
import { orderedRequests } from '../../jobs/test/requests';
import { testRedisSpec } from '../test/redis-spec';
import { redisJobDriver } from './redis-driver';

const VT = 30_000;

const file = testRedisSpec();
const request = orderedRequests({ name: 'redis-rescue-paused.job', queue: 'q', input: { n: 1 } });

/**
 * A rescue leaves a paused queue alone, as a claim does: its lapsed leases are neither put back to waiting nor buried
 * until the queue is resumed (an operator pausing a queue stops every move of its rows a worker would make).
 */
describe('the Redis rescue of a paused queue', () => {
  it('neither re-takes nor buries its lapsed leases, and does both once it is resumed', async () => {
    const clock = frozenClock();
    const driver = redisJobDriver({
      client: file.redis.client,
      prefix: file.redis.prefix(),
      clock,
    });
    const again = await driver.enqueue(request({ runAt: clock.now(), maxAttempts: 3 }));
    const final = await driver.enqueue(request({ runAt: clock.now(), maxAttempts: 1 }));
    const slots = [{ queue: 'q', limit: 2 }];
    expect(await driver.claim({ workerId: 'dead', visibilityTimeoutMs: VT, slots })).toHaveLength(
      2,
    );
    await driver.introspect.pauseQueue('q');
    await clock.advance(2 * VT + 1);

    expect(await driver.rescue({ slots, visibilityTimeoutMs: VT })).toEqual({ buried: [] });
    expect(await driver.get(again.id)).toMatchObject({ state: 'running', workerId: 'dead' });
    expect(await driver.get(final.id)).toMatchObject({ state: 'running', workerId: 'dead' });

    await driver.introspect.resumeQueue('q');
    const { buried } = await driver.rescue({ slots, visibilityTimeoutMs: VT });
    expect(buried.map((r) => [r.id, r.state])).toEqual([[final.id, 'dead']]);
    expect(await driver.get(again.id)).toMatchObject({ state: 'ready', attempt: 1 });
    await driver.close();
  });
});
