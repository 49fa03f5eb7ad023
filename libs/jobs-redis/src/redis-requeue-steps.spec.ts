import { claimOf, type StepRecord } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { orderedRequests } from '../../jobs/test/requests';
import { testRedisSpec } from '../test/redis-spec';
import { redisJobDriver } from './redis-driver';

const file = testRedisSpec();
const request = orderedRequests({ name: 'redis-requeue-steps.job', queue: 'q', input: { n: 1 } });
const slots = [{ queue: 'q', limit: 1 }];

/** A step record named `name` whose output is `output`. */
const step = (name: string, output: number): StepRecord => ({
  name,
  output,
  attempt: 1,
  startedAt: 0,
  completedAt: 0,
});

/**
 * A requeue from a step forgets that step and every step after it entirely: the next run that completes one of them
 * stores it again (its new output is the one a later replay sees), as it would a step never run.
 */
describe('the Redis requeue from a step', () => {
  it('stores the dropped steps again when the next run completes them', async () => {
    const clock = frozenClock();
    const driver = redisJobDriver({
      client: file.redis.client,
      prefix: file.redis.prefix(),
      clock,
    });
    const { id } = await driver.enqueue(request({ runAt: clock.now() }));
    const [first] = await driver.claim({ workerId: 'w', visibilityTimeoutMs: 30_000, slots });
    for (const [i, name] of ['a', 'b', 'c'].entries()) {
      expect(await driver.steps.save(id, claimOf(first!), step(name, i))).toBe(true);
    }
    await driver.nack(id, { ...claimOf(first!), kind: 'dead', error: 'x' });
    await driver.introspect.requeue(id, { fromStep: 'b' });

    const [second] = await driver.claim({ workerId: 'w', visibilityTimeoutMs: 30_000, slots });
    expect(second?.id).toBe(id);
    expect(await driver.steps.save(id, claimOf(second!), step('b', 10))).toBe(true);
    expect(await driver.steps.save(id, claimOf(second!), step('c', 20))).toBe(true);
    const stored = await driver.steps.load(id);
    expect(stored.map((s) => [s.name, s.output])).toEqual([
      ['a', 0],
      ['b', 10],
      ['c', 20],
    ]);
    await driver.close();
  });
});
