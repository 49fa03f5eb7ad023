import { job, publishEvent, t } from '@ultimat3/jobs';
import { frozenClock, runJobs, type JobsHarness } from '@ultimat3/jobs/testing';
import { until } from '../../../test/until';
import { createTestRedis, type TestRedis } from '../test/test-redis';
import { redisJobDriver } from './redis-driver';
import { redisEventBus } from './redis-event-bus';

let redis: TestRedis;
beforeAll(() => {
  redis = createTestRedis();
});
afterAll(async () => {
  await redis?.drop();
});

const calls = { charge: 0, flaky: 0 };
const paid: unknown[] = [];
const flow = job({
  name: 'redis-worker.flow',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  retry: { attempts: 3, backoff: 'fixed', delay: 1_000, jitter: false },
  eventPoll: '10s',
  async run({ step }) {
    await step.run('charge', () => ++calls.charge);
    await step.sleep('nap', '1m');
    paid.push(await step.waitForEvent('paid', 'invoice.paid'));
    await step.run('flaky', () => {
      calls.flaky++;
      if (calls.flaky === 1) throw new Error('once');
    });
  },
});

describe('a worker on the Redis driver', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
  });

  it('runs a job through steps, a sleep, an event and a retry: each step once, done on attempt 2', async () => {
    const clock = frozenClock();
    const prefix = redis.prefix();
    const driver = redisJobDriver({ client: redis.client, prefix, clock });
    const events = redisEventBus({ client: redis.client, prefix, clock });
    h = await runJobs({ jobs: [flow], driver, events, clock });
    const harness = h;
    const state = async (id: string): Promise<string | undefined> => {
      await harness.settle();
      return (await driver.get(id))?.state;
    };

    const { id } = await flow.enqueue({ n: 1 });
    await until(async () => (await state(id)) === 'suspended');
    expect(calls.charge).toBe(1);

    await h.advance(60_000);
    await until(async () => (await driver.steps.load(id)).some((s) => s.name === 'nap'));
    await until(async () => (await state(id)) === 'suspended');
    await publishEvent('invoice.paid', { invoice: 7 });
    await h.advance(10_000);
    await until(async () => calls.flaky === 1 && (await state(id)) === 'delayed');
    await h.advance(1_000);
    await until(async () => (await state(id)) === 'done');

    expect(calls).toEqual({ charge: 1, flaky: 2 });
    // attempt 2 replays the wait from storage: the same event, not a second one
    expect(paid).toEqual([{ invoice: 7 }, { invoice: 7 }]);
    expect((await driver.get(id))?.attempt).toBe(2);
    // the body's own steps, stored once each in order (the runtime keeps bookkeeping steps beside them)
    const names = (await driver.steps.load(id)).map((s) => s.name);
    expect(names.filter((n) => ['charge', 'nap', 'paid', 'flaky'].includes(n))).toEqual([
      'charge',
      'nap',
      'paid',
      'flaky',
    ]);
  });
});
