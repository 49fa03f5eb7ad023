import { job } from '../declare/job';
import { errorCodeOf } from '../errors/jobs-error';
import { t } from '../schema';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { untilAborted } from '../testing/test-kit';

const reasons: unknown[] = [];
const waits = job({
  name: 'drain-after-stop.waits',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: async ({ ctx }) => {
    try {
      await untilAborted(ctx.signal);
    } catch (error) {
      reasons.push(error);
      throw error;
    }
  },
});

describe('a drain begun while a manual stop() waits', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    // a stop that never ends must not hang the suite: this one gives up at once
    const giveUp = h?.worker.stop(h.clock.now());
    await h?.settle();
    await giveUp;
    await h?.close();
    h = undefined;
    reasons.length = 0;
  });

  it('still aborts the runs the stop waits for with X_DRAINING, once, and the stop then ends', async () => {
    h = await runJobs({ jobs: [waits], workerId: 'w' });
    const { id } = await waits.enqueue({ n: 1 });
    await h.settle();
    expect(h.worker.stats().inFlight).toBe(1);

    let stopped = false;
    const stopping = h.worker.stop().then(() => {
      stopped = true;
    });
    await h.advance(60_000);
    expect(stopped).toBe(false);
    expect(reasons).toEqual([]);

    h.worker.beginDrain('SIGTERM');
    h.worker.beginDrain('SIGINT');
    await h.settle();
    expect(stopped).toBe(true);
    await stopping;
    expect(reasons.map(errorCodeOf)).toEqual(['X_DRAINING']);
    expect(h.logger.named('jobs.worker.draining').map((e) => e.fields)).toEqual([
      { workerId: 'w', signal: 'SIGTERM', inFlight: 1 },
    ]);
    expect(await h.driver.get(id)).toMatchObject({ state: 'ready', attempt: 0 });
    expect(h.worker.stats()).toMatchObject({ interrupted: 1, inFlight: 0 });
  });
});
