import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { InvariantError, JobsError } from '../errors';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { harnessSlot } from '../../test/harness-slot';
import { SETTLE_RETRY_FIRST_MS, SETTLE_RETRY_MAX_MS } from './settle-retry';

const input = t.object({ n: t.number });

/** The memory driver, whose settles throw like a dropped connection while `down` is set (the row is NOT moved). */
function flakyDriver(clock: ReturnType<typeof frozenClock>) {
  const inner = memoryJobDriver({ clock });
  const state = { down: false, thrown: 0, error: new Error('Connection terminated unexpectedly') };
  const failing =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      if (!state.down) return fn(...args);
      state.thrown++;
      return Promise.reject(state.error);
    };
  const driver: JobDriver = {
    ...inner,
    ack: failing(inner.ack.bind(inner)),
    nack: failing(inner.nack.bind(inner)),
    ...(inner.ackMany ? { ackMany: failing(inner.ackMany.bind(inner)) } : {}),
  };
  return { driver, state };
}

describe('a settle the driver throws on is sent again (it is fenced, so a repeat is safe)', () => {
  const { start } = harnessSlot();

  it('an ack lost to a blip lands once the driver answers again: done, attempt 1, body ran once', async () => {
    const clock = frozenClock();
    const { driver, state } = flakyDriver(clock);
    let ran = 0;
    const handle = job({
      name: 'settle-retry.ack',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 1 }, // a final attempt: a lapse would bury it dead
      run: () => {
        ran++;
        state.down = true;
      },
    });
    const h = await start({ jobs: [handle], clock, driver });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    expect(ran).toBe(1);
    expect(state.thrown).toBe(1);
    expect(h.logger.named('jobs.settle.retrying')).toHaveLength(1);

    // down for 100 + 200 + 400 ms of retries, then back
    await h.advance(SETTLE_RETRY_FIRST_MS);
    await h.advance(SETTLE_RETRY_FIRST_MS * 2);
    expect(state.thrown).toBe(3);
    state.down = false;
    await h.advance(SETTLE_RETRY_FIRST_MS * 4);

    expect(await h.driver.get(id)).toMatchObject({ state: 'done', attempt: 1 });
    expect(ran).toBe(1);
    expect(h.worker.stats()).toMatchObject({ completed: 1, deadLettered: 0 });
    expect(h.logger.named('jobs.settle.retrying').map((l) => l.fields.tries)).toEqual([1, 2, 3]);
    expect(h.logger.named('jobs.worker.execute-failed')).toHaveLength(0);
  });

  it('a failed attempt whose nack throws is retried too: the retry is scheduled, not lost to a lapse', async () => {
    const clock = frozenClock();
    const { driver, state } = flakyDriver(clock);
    const handle = job({
      name: 'settle-retry.nack',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 3, delay: 60_000, jitter: false },
      run: () => {
        state.down = true;
        throw new Error('boom');
      },
    });
    const h = await start({ jobs: [handle], clock, driver });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    state.down = false;
    await h.advance(SETTLE_RETRY_FIRST_MS);
    expect(await h.driver.get(id)).toMatchObject({
      state: 'delayed',
      attempt: 1,
      lastError: expect.stringMatching(/^boom\n {4}at /) as unknown,
    });
    expect(h.worker.stats()).toMatchObject({ retried: 1 });
  });

  it('waits double each time up to the cap, gives up once the lease cannot be its own, and the lapse takes over', async () => {
    const clock = frozenClock();
    const { driver, state } = flakyDriver(clock);
    const runs: number[] = [];
    const handle = job({
      name: 'settle-retry.window',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 3 },
      run: ({ attempt }) => {
        runs.push(attempt);
        state.down = attempt === 1;
      },
    });
    const h = await start({ jobs: [handle], clock, driver, visibilityTimeoutMs: 10_000 });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    for (let i = 0; i < 5; i++) await h.advance(SETTLE_RETRY_MAX_MS);
    const waits = h.logger.named('jobs.settle.retrying').map((l) => l.fields.retryInMs);
    // sent at 0, 100, 300, 700, 1,500, 3,100, 5,100, 7,100 and 9,100 ms: one more wait would pass the 10 s window
    expect(waits).toEqual([100, 200, 400, 800, 1_600, 2_000, 2_000, 2_000]);
    expect(h.logger.named('jobs.worker.execute-failed')).toHaveLength(1);
    expect(h.worker.stats().inFlight).toBe(0);

    // the row is still running under the lost claim; at the lapse it is taken again, as before this retry existed
    state.down = false;
    await h.advance(10_000);
    expect(runs).toEqual([1, 2]);
    expect(await h.driver.get(id)).toMatchObject({ state: 'done', attempt: 2 });
  });

  it('a re-send due exactly at the end of the window is still sent; the window is the visibility timeout', async () => {
    const clock = frozenClock();
    const { driver, state } = flakyDriver(clock);
    const handle = job({
      name: 'settle-retry.edge',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => void (state.down = true),
    });
    // the window ends 9,100 ms after the first failure, where the eighth re-send is due
    const h = await start({ jobs: [handle], clock, driver, visibilityTimeoutMs: 9_100 });
    await handle.enqueue({ n: 1 });
    await h.settle();
    for (let i = 0; i < 5; i++) await h.advance(SETTLE_RETRY_MAX_MS);
    expect(h.logger.named('jobs.settle.retrying')).toHaveLength(8);
    expect(state.thrown).toBe(9);
    expect(h.logger.named('jobs.worker.execute-failed')).toHaveLength(1);
  });

  it('the database out of reach (X_DRIVER_UNAVAILABLE, as a driver answers a failed batch of acks) is a blip: the batch fails at once, each ack is sent again until it lands', async () => {
    const clock = frozenClock();
    const { driver, state } = flakyDriver(clock);
    state.error = new JobsError('X_DRIVER_UNAVAILABLE', 'PostgreSQL is out of reach');
    let ran = 0;
    const handle = job({
      name: 'settle-retry.unavailable',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 1 }, // final attempts: a lapse would bury them dead
      run: () => {
        ran++;
        state.down = true;
      },
    });
    const h = await start({ jobs: [handle], clock, driver, concurrency: 8 });
    const ids = await Promise.all(
      [1, 2, 3, 4, 5, 6, 7, 8].map(async (n) => (await handle.enqueue({ n })).id),
    );
    await h.settle();
    expect(ran).toBe(8);
    // one throw per batch sent, none sent again ack by ack into the outage
    const thrownByBatches = state.thrown;
    expect(thrownByBatches).toBeLessThan(8);
    expect(h.logger.named('jobs.settle.retrying')).toHaveLength(8);
    expect(state.thrown).toBe(thrownByBatches);

    state.down = false;
    await h.advance(SETTLE_RETRY_FIRST_MS);
    for (const id of ids)
      expect(await h.driver.get(id)).toMatchObject({ state: 'done', attempt: 1 });
    expect(h.worker.stats()).toMatchObject({ completed: 8, deadLettered: 0 });
    expect(h.logger.named('jobs.worker.execute-failed')).toHaveLength(0);
  });

  it('a coded error of ours is not a blip: thrown at once, never re-sent', async () => {
    const clock = frozenClock();
    const { driver, state } = flakyDriver(clock);
    state.error = new InvariantError('a bug of ours');
    const handle = job({
      name: 'settle-retry.coded',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => {
        state.down = true;
      },
    });
    const h = await start({ jobs: [handle], clock, driver });
    await handle.enqueue({ n: 1 });
    await h.settle();
    expect(state.thrown).toBe(1);
    expect(h.logger.named('jobs.settle.retrying')).toHaveLength(0);
    expect(h.logger.named('jobs.worker.execute-failed')).toHaveLength(1);
  });
});
