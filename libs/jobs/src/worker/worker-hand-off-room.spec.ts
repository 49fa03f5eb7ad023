import type { WakeHandOff } from '../driver/backend';
import type { ClaimedJob } from '../driver/job-row';
import { job } from '../declare/job';
import { t } from '../schema';
import { enqueueRequest } from '../testing/enqueue-request';
import { frozenClock } from '../testing/frozen-clock';
import { slotHoldingJob } from '../../test/slot-holding-job';
import { runJobs, type JobsHarness, type RunJobsOptions } from '../testing/run-jobs';
import type { JobWorker } from './worker-options';

const QUEUE = 'hand-off-room';
const OTHER = 'hand-off-room-other';
const { handle: noop, name: NAME, ran, finishTwo, reset } = slotHoldingJob(QUEUE);
const other = job({
  name: 'hand-off-room.other',
  queue: OTHER,
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `n:${n}`,
  tenant: 'none',
  run: () => undefined,
});

/** Lets promise chains and immediate callbacks run. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

/**
 * What a worker's hand-off side offers and takes, bounded by its slots and its per-process caps: a row it has no
 * room for goes back at once, unstarted and uncounted, its run time kept.
 */
describe("a worker's hand-off side, bounded by its slots and caps", () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    finishTwo();
    await h?.close();
    h = undefined;
    reset();
  });

  async function start(options: Omit<RunJobsOptions, 'jobs'> = {}) {
    const clock = frozenClock();
    h = await runJobs({
      jobs: [noop, other],
      clock,
      installFacade: false,
      queues: [QUEUE],
      ...options,
    });
    await settle();
    const harness = h;
    const { handOff } = harness.worker as JobWorker & { readonly handOff: WakeHandOff };
    /** Enqueues input `n` due now; a higher `priority` number is claimed after. */
    const enqueue = async (n: number, priority = 0): Promise<string> =>
      (
        await harness.driver.enqueue(
          enqueueRequest({ name: NAME, queue: QUEUE, input: { n }, runAt: clock.now(), priority }),
        )
      ).id;
    /** Claims the rows `ids` for the worker, as a backend's hand-off claims them. */
    const handed = async (...ids: string[]): Promise<readonly ClaimedJob[]> => {
      const rows = await harness.driver.claim({
        workerId: harness.worker.id,
        visibilityTimeoutMs: 30_000,
        slots: [{ queue: QUEUE, limit: ids.length }],
      });
      expect(rows.map((row) => row.id)).toEqual(ids);
      return rows;
    };
    /** Starts input 2, which holds its slot. */
    const hold = async (): Promise<void> => {
      await enqueue(2);
      harness.worker.signalEnqueued(QUEUE);
      await settle();
      expect(ran).toEqual([2]);
    };
    return { h: harness, clock, handOff, enqueue, handed, hold };
  }

  it('offers no more than the perQueue cap lets start', async () => {
    const { handOff } = await start({ concurrency: 4, limits: { perQueue: 1 } });
    expect(handOff.offers()).toEqual([{ queue: QUEUE, free: 1, names: [NAME] }]);
  });

  it('shares the global cap among the queues it offers: what one queue took, the next is not offered', async () => {
    const { handOff } = await start({
      concurrency: 4,
      limits: { global: 3 },
      queues: [QUEUE, OTHER],
    });
    expect(handOff.offers()).toEqual([{ queue: QUEUE, free: 3, names: [NAME] }]);
  });

  it('offers neither a queue with no slot free nor a queue no job it serves is named in', async () => {
    const { handOff, hold } = await start({ concurrency: 1, queues: [QUEUE, 'unnamed-q'] });
    expect(handOff.offers()).toEqual([{ queue: QUEUE, free: 1, names: [NAME] }]);
    await hold();
    expect(handOff.offers()).toEqual([]);
  });

  it('offers nothing once stopped', async () => {
    const { h: harness, handOff } = await start({ concurrency: 2 });
    expect(handOff.offers()).toEqual([{ queue: QUEUE, free: 2, names: [NAME] }]);
    await harness.worker.stop();
    expect(handOff.offers()).toEqual([]);
  });

  it('hands back at once, its run time kept, a lone row the global cap has no room for', async () => {
    const {
      h: harness,
      handOff,
      enqueue,
      handed,
      hold,
    } = await start({
      concurrency: 2,
      limits: { global: 1 },
    });
    await hold();
    const id = await enqueue(1);
    const runAt = (await harness.driver.get(id))?.runAt;
    handOff.takeClaimed(await handed(id));
    await settle();
    expect(ran).toEqual([2]);
    expect(await harness.driver.get(id)).toMatchObject({ state: 'ready', attempt: 0, runAt });
  });

  it('of two rows handed at once with one slot free, starts the first and hands the second back', async () => {
    const { h: harness, handOff, enqueue, handed } = await start({ concurrency: 1 });
    const first = await enqueue(2);
    const second = await enqueue(3, 1);
    handOff.takeClaimed(await handed(first, second));
    await settle();
    expect(ran).toEqual([2]);
    expect(await harness.driver.get(second)).toMatchObject({ state: 'ready', attempt: 0 });
  });

  it('of two rows handed at once with room in the global cap for one, hands the second back, its run time kept', async () => {
    const {
      h: harness,
      handOff,
      enqueue,
      handed,
    } = await start({
      concurrency: 2,
      limits: { global: 1 },
    });
    const first = await enqueue(2);
    const second = await enqueue(3, 1);
    const runAt = (await harness.driver.get(second))?.runAt;
    handOff.takeClaimed(await handed(first, second));
    await settle();
    expect(ran).toEqual([2]);
    expect(await harness.driver.get(second)).toMatchObject({ state: 'ready', attempt: 0, runAt });
  });

  it('starts a row handed while a stop waits for its runs, in a slot still free', async () => {
    const { h: harness, handOff, enqueue, handed, hold } = await start({ concurrency: 2 });
    await hold();
    const stopping = harness.worker.stop();
    await settle();
    const id = await enqueue(1);
    handOff.takeClaimed(await handed(id));
    await settle();
    expect(ran).toEqual([2, 1]);
    expect(await harness.driver.get(id)).toMatchObject({ state: 'done', attempt: 1 });
    finishTwo();
    await stopping;
  });

  it('tells a listener that left nothing more', async () => {
    const { h: harness, handOff } = await start({ concurrency: 1 });
    let told = 0;
    const off = handOff.onIdle(() => told++);
    harness.worker.signalEnqueued(QUEUE);
    await settle();
    expect(told).toBe(1);
    off();
    harness.worker.signalEnqueued(QUEUE);
    await settle();
    expect(told).toBe(1);
  });
});
