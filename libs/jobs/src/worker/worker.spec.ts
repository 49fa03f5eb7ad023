import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import { JobRegistry } from '../registry/job-registry';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { recordingLogger } from '../util/logger';
import { jobWorker } from './job-worker';

const input = t.object({ n: t.number });

/** Gates a body per input: the test decides when each run finishes. */
function gates(): { wait: (n: number) => Promise<void>; open: (n: number) => void } {
  const all = new Map<number, { promise: Promise<void>; open: () => void }>();
  const get = (n: number): { promise: Promise<void>; open: () => void } => {
    let g = all.get(n);
    if (g === undefined) {
      let open!: () => void;
      const promise = new Promise<void>((resolve) => {
        open = resolve;
      });
      g = { promise, open };
      all.set(n, g);
    }
    return g;
  };
  return { wait: (n) => get(n).promise, open: (n) => get(n).open() };
}

describe('jobWorker', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('refuses start() while a served declaration has no run and no binding: X_JOB_UNBOUND', async () => {
    const unbound = job({
      name: 'worker.unbound',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
    });
    const registry = new JobRegistry();
    registry.register(unbound);
    const worker = jobWorker({ driver: memoryJobDriver(), registry, clock: frozenClock() });

    let thrown: unknown;
    await worker.start().catch((error: unknown) => {
      thrown = error;
    });
    expect(errorCodeOf(thrown)).toBe('X_JOB_UNBOUND');
    expect(worker.stats().claims).toBe(0);
  });

  it('serves an unbound declaration once a body is bound to it', async () => {
    const bound = job({
      name: 'worker.bound-later',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
    });
    const registry = new JobRegistry();
    registry.bind(
      bound,
      ({ input: i }) => Promise.resolve((i as { n: number }).n + 1),
      'Provider.method',
    );
    h = await runJobs({ jobs: [], registry });
    const { id } = await bound.enqueue({ n: 1 });
    await h.settle();
    expect((await h.driver.get(id))?.state).toBe('done');
  });

  it('refills a freed slot at once: the next job starts when the first finishes, with no poll', async () => {
    const g = gates();
    const started: [number, number][] = [];
    const handle = job({
      name: 'worker.refill',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      async run({ input: i }) {
        started.push([i.n, h?.clock.now() ?? -1]);
        await g.wait(i.n);
      },
    });
    h = await runJobs({ jobs: [handle], concurrency: 1, idlePollMaxMs: 60_000 });
    await h.advance(10_000);
    await handle.enqueue({ n: 1 });
    await handle.enqueue({ n: 2 });
    await h.settle();
    expect(started.map(([n]) => n)).toEqual([1]);

    // a full worker asks the queue for nothing
    const claims = h.worker.stats().claims;
    await h.advance(120_000);
    expect(started.map(([n]) => n)).toEqual([1]);
    expect(h.worker.stats().claims).toBe(claims);
    const finishedAt = h.clock.now();
    g.open(1);
    await h.settle();

    expect(started).toEqual([
      [1, finishedAt - 120_000],
      [2, finishedAt],
    ]);
    expect(h.worker.stats().claims).toBe(claims + 1);
    g.open(2);
    await h.settle();
  });

  it('never holds more than its concurrency per queue', async () => {
    const g = gates();
    let running = 0;
    let peak = 0;
    const handle = job({
      name: 'worker.concurrency',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      async run({ input: i }) {
        running++;
        peak = Math.max(peak, running);
        await g.wait(i.n);
        running--;
      },
    });
    h = await runJobs({ jobs: [handle], concurrency: 2 });
    for (let n = 1; n <= 5; n++) await handle.enqueue({ n });
    await h.advance(5_000);
    expect(running).toBe(2);
    expect(h.worker.stats().inFlight).toBe(2);

    for (let n = 1; n <= 5; n++) {
      g.open(n);
      await h.settle();
      expect(running).toBe(Math.min(2, 5 - n));
    }
    expect(peak).toBe(2);
    expect(h.worker.stats()).toMatchObject({ completed: 5, inFlight: 0 });
  });

  it('keeps a separate pool per queue, from a table', async () => {
    const g = gates();
    const running = { fast: 0, slow: 0 };
    const fast = job({
      name: 'worker.pool.fast',
      queue: 'fast',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      async run({ input: i }) {
        running.fast++;
        await g.wait(i.n);
        running.fast--;
      },
    });
    const slow = job({
      name: 'worker.pool.slow',
      queue: 'slow',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      async run({ input: i }) {
        running.slow++;
        await g.wait(i.n);
        running.slow--;
      },
    });
    h = await runJobs({ jobs: [fast, slow], concurrency: { fast: 3, slow: 1 } });
    for (let n = 1; n <= 4; n++) await fast.enqueue({ n });
    for (let n = 11; n <= 13; n++) await slow.enqueue({ n });
    await h.advance(5_000);
    expect(running).toEqual({ fast: 3, slow: 1 });

    for (const n of [1, 2, 3, 4, 11, 12, 13]) g.open(n);
    await h.settle();
    await h.advance(1_000);
    expect(running).toEqual({ fast: 0, slow: 0 });
    expect(h.worker.stats().completed).toBe(7);
  });

  it('a claim that throws is logged, and the worker recovers by itself when the driver comes back', async () => {
    const clock = frozenClock();
    const inner = memoryJobDriver({ clock });
    let down = true;
    const driver: JobDriver = {
      ...inner,
      claim: (options) =>
        down ? Promise.reject(new Error('connection refused')) : inner.claim(options),
      claimRescuing: (options, rescue) =>
        down
          ? Promise.reject(new Error('connection refused'))
          : inner.claimRescuing(options, rescue),
    };
    const handle = job({
      name: 'worker.claim-fails',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => 'ok',
    });
    h = await runJobs({ jobs: [handle], clock, driver });
    const { id } = await handle.enqueue({ n: 1 });
    await h.advance(30_000);
    const failed = h.logger.named('jobs.claim.failed');
    expect(failed.length).toBeGreaterThan(1);
    expect(failed.every((e) => e.level === 'error')).toBe(true);
    // down, the worker backs off to the idle ceiling rather than hammering the database
    expect(failed.length).toBeLessThanOrEqual(1 + 30_000 / 2_000 + 4);
    expect((await h.driver.get(id))?.state).toBe('ready');

    down = false;
    await h.advance(2_000);
    expect((await h.driver.get(id))?.state).toBe('done');
    expect(h.worker.stats().completed).toBe(1);
  });

  it('reports a served queue no registered job names, once at start', async () => {
    const handle = job({
      name: 'worker.unregistered-queue',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      run: () => 'ok',
    });
    const logger = recordingLogger();
    const registry = new JobRegistry();
    registry.register(handle);
    const clock = frozenClock();
    const worker = jobWorker({
      driver: memoryJobDriver({ clock }),
      registry,
      clock,
      logger,
      queues: ['default', 'adhoc'],
    });
    await worker.start();
    await clock.advance(10_000);
    expect(logger.named('jobs.worker.queue-unregistered').map((e) => e.fields.queue)).toEqual([
      'adhoc',
    ]);
    const stopping = worker.stop();
    await clock.flush();
    await stopping;
  });
});
