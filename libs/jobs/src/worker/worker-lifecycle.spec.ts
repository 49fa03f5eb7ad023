import { job } from '../declare/job';
import { memoryJobDriver } from '../driver/memory';
import { errorCodeOf } from '../errors/jobs-error';
import { JobRegistry } from '../registry/job-registry';
import { t } from '../schema';
import { enqueueRequest } from '../testing/enqueue-request';
import { frozenClock } from '../testing/frozen-clock';
import { thrownCode, untilAborted } from '../testing/test-kit';
import { recordingLogger } from '../util/logger';
import { beginWorkerDrain, startWorker, stopWorker } from './worker-lifecycle';
import { WorkerParts } from './worker-parts';
import type { JobWorkerOptions } from './worker-options';
import { workerSettings } from './worker-settings';

const QUEUE = 'lifecycle';
const NAME = 'lifecycle.job';
/** What the job's runs do: each test sets its own. */
let body: (signal: AbortSignal) => Promise<unknown> = async () => 'ran';
const served = job({
  name: NAME,
  queue: QUEUE,
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: ({ ctx }) => body(ctx.signal),
});
/** A job of the same queue with no body. */
const unbound = job({
  name: 'lifecycle.unbound',
  queue: QUEUE,
  input: t.object({}),
  idempotencyKey: () => 'k',
  tenant: 'none',
});

/** A worker's parts on the memory driver and a frozen clock, serving one job whose body is `run`. */
function parts(
  run: (signal: AbortSignal) => Promise<unknown>,
  extra: Partial<JobWorkerOptions> = {},
) {
  const clock = frozenClock();
  const logger = recordingLogger();
  const driver = memoryJobDriver({ clock });
  const registry = new JobRegistry();
  registry.register(served);
  body = run;
  const options: JobWorkerOptions = { driver, registry, clock, logger, workerId: 'w-1', ...extra };
  const enqueue = async (n: number): Promise<string> =>
    (
      await driver.enqueue(
        enqueueRequest({ name: NAME, queue: QUEUE, input: { n }, runAt: clock.now() }),
      )
    ).id;
  return { clock, logger, driver, enqueue, w: new WorkerParts(options, workerSettings(options)) };
}

describe('the worker lifecycle', () => {
  it('starts once: serves the queues, warns of one no job names, claims; a second start is refused', async () => {
    const { clock, logger, driver, enqueue, w } = parts(async () => 'ran', {
      queues: [QUEUE, 'nobody'],
      concurrency: 3,
    });
    const id = await enqueue(1);
    await startWorker(w);
    expect(w.state).toBe('running');
    expect(w.stats).toMatchObject({ slots: 6, lastPassAt: clock.now() });
    expect(w.planner).toBeDefined();
    expect(w.unserved).toBeDefined();
    expect(logger.named('jobs.worker.queue-unregistered').map((e) => e.fields)).toEqual([
      { workerId: 'w-1', queue: 'nobody' },
    ]);
    expect(logger.named('jobs.worker.started').map((e) => e.fields)).toEqual([
      { workerId: 'w-1', queues: [QUEUE, 'nobody'] },
    ]);
    await clock.flush();
    expect((await driver.get(id))?.state).toBe('done');

    const again = startWorker(w).catch((error: unknown) => error);
    expect(errorCodeOf(await again)).toBe('X_INVARIANT');
    expect(String(await again)).toContain('jobWorker w-1 was already started.');

    await stopWorker(w, undefined);
    expect(w.state).toBe('stopped');
    expect(logger.named('jobs.worker.stopped')).toHaveLength(1);
    // a stopped worker stops once
    await stopWorker(w, undefined);
    expect(logger.named('jobs.worker.stopped')).toHaveLength(1);
  });

  it('refuses a start while a served job has no body, and stays new', async () => {
    const { w } = parts(async () => 'ran', { queues: [QUEUE] });
    w.options.registry.register(unbound);
    expect(await thrownCode(() => startWorker(w))).toBe('X_JOB_UNBOUND');
    expect(w.state).toBe('new');
  });

  it('begins a drain once: claims no more, aborts the runs with X_DRAINING; the stop then waits for them', async () => {
    const reasons: unknown[] = [];
    const { clock, logger, driver, enqueue, w } = parts(async (signal) => {
      try {
        await untilAborted(signal);
      } catch (error) {
        reasons.push(error);
        throw error;
      }
    });
    const id = await enqueue(1);
    await startWorker(w);
    await clock.flush();
    expect(w.runs.size).toBe(1);

    beginWorkerDrain(w, 'SIGTERM');
    beginWorkerDrain(w, 'SIGINT');
    expect(w.state).toBe('draining');
    expect(logger.named('jobs.worker.draining').map((e) => e.fields)).toEqual([
      { workerId: 'w-1', signal: 'SIGTERM', inFlight: 1 },
    ]);
    const claims = w.stats.claims;
    await enqueue(2);
    await clock.advance(60_000);
    expect(w.stats.claims).toBe(claims);

    await stopWorker(w, undefined);
    expect(reasons.map(errorCodeOf)).toEqual(['X_DRAINING']);
    expect(w.runs.size).toBe(0);
    expect((await driver.get(id))?.state).toBe('ready');
    expect(w.state).toBe('stopped');
  });

  it('stops a worker that never drained: stops claiming, then abandons what outlives the deadline', async () => {
    const { clock, logger, enqueue, w } = parts(() => new Promise<never>(() => undefined));
    await enqueue(1);
    await startWorker(w);
    await clock.flush();
    expect(w.runs.size).toBe(1);
    const stopping = stopWorker(w, clock.now() + 1_000);
    expect(w.state).toBe('draining');
    await clock.advance(1_000);
    await stopping;
    expect(logger.named('jobs.worker.drain-abandoned')).toHaveLength(1);
    expect(w.state).toBe('stopped');
  });

  it('stops once under two stops at once: each waits for its deadline, both end stopped, one stopped line', async () => {
    let finish: () => void = () => undefined;
    const { clock, logger, enqueue, w } = parts(
      () => new Promise<void>((resolve) => (finish = resolve)),
    );
    await enqueue(1);
    await startWorker(w);
    await clock.flush();
    expect(w.runs.size).toBe(1);
    let firstDone = false;
    let secondDone = false;
    const first = stopWorker(w, clock.now() + 1_000).then(() => (firstDone = true));
    const second = stopWorker(w, undefined).then(() => (secondDone = true));
    await clock.advance(1_000);
    await first;
    // the first stop's deadline abandoned the run; the second, with none, waits for it
    expect(logger.named('jobs.worker.drain-abandoned')).toHaveLength(1);
    expect(w.state).toBe('stopped');
    expect(secondDone).toBe(false);
    finish();
    await second;
    expect([firstDone, secondDone]).toEqual([true, true]);
    expect(logger.named('jobs.worker.stopped')).toHaveLength(1);
  });
});
