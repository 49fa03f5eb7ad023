import { job } from '../../declare/job';
import { errorCodeOf } from '../../errors/jobs-error';
import { t } from '../../schema';
import { runJobs, type JobsHarness } from '../run-jobs';
import { gate, untilAborted } from '../test-kit';
import { VT, type Harness } from './harness';

const QUEUE = 'conformance-cancel';

/** The body the current test runs: the job is declared once (a name is a durable key, declared once per process). */
let body: (signal: AbortSignal) => Promise<void> = () => Promise.resolve();

const cancelRun = job({
  name: 'conformance.cancel-run',
  queue: QUEUE,
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  retry: { attempts: 3 },
  run: ({ ctx }) => body(ctx.signal),
});

/** Waits in real time (the driver's I/O is real) while the frozen clock stands still, until `check` holds. */
async function until(
  w: JobsHarness,
  what: string,
  check: () => boolean | Promise<boolean>,
): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (await check()) return;
    await w.settle();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`conformance: ${what} did not happen within 10 s`);
}

/**
 * `cancel` of a RUNNING row, through a real worker on the driver: the attempt stops at its next heartbeat (which
 * no longer matches its own row), and whatever the body does after, its settle cannot land.
 */
export function introspectionCancelSuite(h: Harness): void {
  describe('introspect.cancel of a running job, under a worker', () => {
    let w: JobsHarness | undefined;
    afterEach(async () => {
      await w?.close();
      w = undefined;
    });

    const start = async (run: (signal: AbortSignal) => Promise<void>): Promise<JobsHarness> => {
      body = run;
      w = await runJobs({
        jobs: [cancelRun],
        driver: h.driver(),
        clock: h.clock(),
        installFacade: false,
        visibilityTimeoutMs: VT,
      });
      return w;
    };
    const enqueue = () =>
      h.enqueue({ name: 'conformance.cancel-run', queue: QUEUE, input: { n: 1 } });
    const settledCounts = async () =>
      (await h.introspect().counterTotals()).find((c) => c.job === 'conformance.cancel-run');

    it('stops at its next heartbeat: the signal aborts with X_JOB_LEASE_LOST and the row stays cancelled', async () => {
      const reasons: unknown[] = [];
      let started = false;
      const worker = await start(async (signal) => {
        started = true;
        try {
          await untilAborted(signal);
        } catch (error) {
          reasons.push(error);
          throw error;
        }
      });
      const { id } = await enqueue();
      worker.worker.signalEnqueued(QUEUE);
      await until(worker, 'the body starting', () => started);

      await h.introspect().cancel(id, 'runaway pass');
      expect(reasons).toEqual([]);
      await worker.advance(VT / 3);
      await until(worker, 'the abort', () => reasons.length > 0);
      await until(worker, 'the run ending', () => worker.worker.stats().inFlight === 0);

      expect(reasons.map(errorCodeOf)).toEqual(['X_JOB_LEASE_LOST']);
      expect(await h.driver().get(id)).toMatchObject({
        state: 'cancelled',
        workerId: null,
        claim: null,
        lastError: 'runaway pass',
      });
      expect(await settledCounts()).toMatchObject({ cancelled: 1, done: 0, retried: 0, dead: 0 });
      await worker.advance(2 * VT);
      expect((await h.driver().get(id))?.state).toBe('cancelled');
    });

    it('a body that returns after the cancel does not settle it: its ack lands nowhere', async () => {
      const release = gate();
      let started = false;
      let returned = false;
      const worker = await start(async () => {
        started = true;
        await release.promise;
        returned = true;
      });
      const { id } = await enqueue();
      worker.worker.signalEnqueued(QUEUE);
      await until(worker, 'the body starting', () => started);

      await h.introspect().cancel(id);
      release.open();
      await until(worker, 'the body returning', () => returned);
      await until(worker, 'the run ending', () => worker.worker.stats().inFlight === 0);

      expect(await h.driver().get(id)).toMatchObject({ state: 'cancelled', claim: null });
      expect(await settledCounts()).toMatchObject({ cancelled: 1, done: 0, retried: 0 });
      expect(worker.logger.named('jobs.settle.unowned')).toHaveLength(1);
    });
  });
}
