import { job } from '../declare/job';
import { t } from '../schema';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { untilAborted } from '../testing/test-kit';
import { harnessWorker } from '../../test/harness-worker';

let runs = 0;
const held = job({
  name: 'drain-first-claim.held',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: ({ signal }) => {
    runs++;
    return untilAborted(signal);
  },
});

describe('a worker drained right after its start, its first claim on the wire', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('hands the row that claim took back unstarted and uncounted, and stops without waiting for the deadline', async () => {
    // the harness's own worker serves another queue: the worker under test is the only one claiming
    h = await runJobs({ jobs: [held], queues: ['elsewhere'] });
    const { id } = await held.enqueue({ n: 1 });
    const worker = harnessWorker(h, 'drained-at-once');
    await worker.start();
    worker.beginDrain('SIGTERM');
    let stopped = false;
    const stopping = worker.stop(h.clock.now() + 60_000).then(() => (stopped = true));
    await h.advance(1_000);
    expect(stopped).toBe(true);
    expect(await h.driver.get(id)).toMatchObject({ state: 'ready', attempt: 0, lastError: null });
    expect(runs).toBe(0);
    expect(worker.stats()).toMatchObject({ inFlight: 0, interrupted: 0 });
    expect(h.logger.named('jobs.worker.drain-abandoned')).toEqual([]);
    await stopping;
  });
});
