import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import type { JobProgress } from '../driver/job-row';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { PROGRESS_INTERVAL_MS } from './progress';
import { gate } from '../testing/test-kit';

describe('progress(done, total, note)', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** A harness whose driver records every progress write. */
  async function start(handles: Parameters<typeof runJobs>[0]['jobs']): Promise<{
    h: JobsHarness;
    writes: JobProgress[];
  }> {
    const clock = frozenClock();
    const inner = memoryJobDriver({ clock });
    const writes: JobProgress[] = [];
    const driver: JobDriver = {
      ...inner,
      recordProgress: (id, claim, p) => {
        writes.push(p);
        return inner.recordProgress(id, claim, p);
      },
    };
    h = await runJobs({ jobs: handles, clock, driver });
    return { h, writes };
  }

  it('writes at most once a second, and the last report is flushed before the settle', async () => {
    const halfway = gate();
    const handle = job({
      name: 'progress.throttled',
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      async run({ progress }) {
        for (let i = 0; i <= 5; i++) progress(i, 10, `row ${i}`);
        await halfway.promise;
        for (let i = 6; i <= 10; i++) progress(i, 10);
      },
    });
    const { h, writes } = await start([handle]);
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    expect(writes).toEqual([{ done: 0, total: 10, note: 'row 0' }]);
    expect((await h.driver.get(id))?.progress).toEqual({ done: 0, total: 10, note: 'row 0' });

    halfway.open();
    await h.settle();
    expect(writes).toEqual([
      { done: 0, total: 10, note: 'row 0' },
      { done: 10, total: 10 },
    ]);
    expect(await h.driver.get(id)).toMatchObject({
      state: 'done',
      progress: { done: 10, total: 10 },
    });
  });

  it('a report a second after the last write is written at once', async () => {
    const later = gate();
    const finish = gate();
    const handle = job({
      name: 'progress.interval',
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      async run({ progress }) {
        progress(1, 3);
        progress(2, 3, 'held back');
        await later.promise;
        progress(3, 3, 'after a second');
        await finish.promise;
      },
    });
    const { h, writes } = await start([handle]);
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    expect(writes).toEqual([{ done: 1, total: 3 }]);

    await h.advance(PROGRESS_INTERVAL_MS);
    later.open();
    await h.settle();
    expect(writes).toEqual([
      { done: 1, total: 3 },
      { done: 3, total: 3, note: 'after a second' },
    ]);
    expect((await h.driver.get(id))?.progress).toEqual({
      done: 3,
      total: 3,
      note: 'after a second',
    });
    finish.open();
    await h.settle();
    expect(writes).toHaveLength(2); // nothing was held back, so the settle wrote nothing more
  });

  it('the last report is flushed before a failure too', async () => {
    const handle = job({
      name: 'progress.on-failure',
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 1 },
      run: ({ progress }) => {
        progress(1, 4);
        progress(3, 4, 'stuck here');
        throw new Error('broke at row 3');
      },
    });
    const { h } = await start([handle]);
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    expect(await h.driver.get(id)).toMatchObject({
      state: 'dead',
      progress: { done: 3, total: 4, note: 'stuck here' },
    });
  });

  it('the last report is flushed before a drain hands the run back', async () => {
    const handle = job({
      name: 'progress.on-drain',
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: ({ progress, signal }) =>
        new Promise<never>((_, reject) => {
          progress(1, 4);
          progress(2, 4, 'half way');
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
    });
    const { h } = await start([handle]);
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();
    h.worker.beginDrain('SIGTERM');
    await h.settle();

    expect(await h.driver.get(id)).toMatchObject({
      state: 'ready',
      attempt: 0,
      progress: { done: 2, total: 4, note: 'half way' },
    });
  });

  it('a progress write the driver fails is swallowed: the run completes all the same', async () => {
    const clock = frozenClock();
    const inner = memoryJobDriver({ clock });
    let refused = 0;
    const driver: JobDriver = {
      ...inner,
      recordProgress: () => {
        refused++;
        return Promise.reject(new Error('Connection terminated unexpectedly'));
      },
    };
    const handle = job({
      name: 'progress.write-fails',
      input: t.object({ n: t.number }),
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: ({ progress }) => {
        progress(1, 2);
        progress(2, 2, 'held back, flushed before the ack');
        return 'done';
      },
    });
    h = await runJobs({ jobs: [handle], clock, driver });
    const { id } = await handle.enqueue({ n: 1 });
    await h.settle();

    expect(refused).toBe(2);
    expect(await h.driver.get(id)).toMatchObject({ state: 'done', attempt: 1 });
    expect(h.metrics.total('default', 'ok')).toBe(1);
    expect(h.logger.named('jobs.worker.execute-failed')).toEqual([]);
  });
});
