import { job } from '../declare/job';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { t } from '../schema';
import { frozenClock } from '../testing/frozen-clock';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { gate } from '../testing/test-kit';

const ran: number[] = [];
const late = job({
  name: 'stop-late.noop',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: ({ input, signal }) => {
    ran.push(input.n);
    // a body that honours its signal: a drain's abort ends it
    signal.throwIfAborted();
    return 'ran';
  },
});

/** A worker over the memory driver whose claims wait on the wire until `answer.open()`. */
async function slowClaims(): Promise<{ h: JobsHarness; answer: ReturnType<typeof gate> }> {
  const clock = frozenClock();
  const inner = memoryJobDriver({ clock });
  const answer = gate();
  const driver: JobDriver = {
    ...inner,
    claim: async (options) => {
      await answer.promise;
      return inner.claim(options);
    },
    claimRescuing: async (options, rescue) => {
      await answer.promise;
      return inner.claimRescuing(options, rescue);
    },
  };
  const h = await runJobs({ jobs: [late], clock, driver, workerId: 'stopped' });
  return { h, answer };
}

describe('a claim that answers after the stop gave up waiting for it', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
    ran.length = 0;
  });

  it.each([
    ['a manual stop', false],
    ['a drain', true],
  ])(
    'after %s past its deadline, hands its rows back uncounted and runs none',
    async (_, drain) => {
      const slow = await slowClaims();
      h = slow.h;
      const { id } = await late.enqueue({ n: 1 });
      await h.settle();
      expect(h.worker.stats().claims).toBeGreaterThan(0);

      if (drain) h.worker.beginDrain('SIGTERM');
      const stopping = h.worker.stop(h.clock.now() + 1_000);
      await h.advance(1_000);
      await stopping;
      expect(h.logger.named('jobs.worker.stopped')).toHaveLength(1);

      // the claim on the wire answers now: the worker stopped, so the row goes back rather than running (and being
      // renewed) under a worker that is gone
      slow.answer.open();
      await h.settle();
      await h.advance(60_000);
      expect(ran).toEqual([]);
      expect(h.worker.stats()).toMatchObject({ inFlight: 0, completed: 0, interrupted: 0 });
      expect(await h.driver.get(id)).toMatchObject({ state: 'ready', attempt: 0 });
      expect(h.clock.pending()).toBe(0);
    },
  );
});

describe('a claim that answers while the drain still waits for it', () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
    ran.length = 0;
  });

  it('hands its rows back unstarted and uncounted: a draining worker starts nothing', async () => {
    const slow = await slowClaims();
    h = slow.h;
    const { id } = await late.enqueue({ n: 1 });
    await h.settle();

    h.worker.beginDrain('SIGTERM');
    const stopping = h.worker.stop();
    // the claim answers before the stop's wait ends: its row goes back as it came, no body runs during the drain
    slow.answer.open();
    await h.settle();
    await stopping;
    expect(ran).toEqual([]);
    expect(h.worker.stats()).toMatchObject({ completed: 0, interrupted: 0, inFlight: 0 });
    expect(await h.driver.get(id)).toMatchObject({ state: 'ready', attempt: 0, lastError: null });
  });
});
