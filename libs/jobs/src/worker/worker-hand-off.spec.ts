import type { WakeHandOff } from '../driver/backend';
import type { JobDriver } from '../driver/job-driver';
import { memoryJobDriver } from '../driver/memory';
import { enqueueRequest } from '../testing/enqueue-request';
import { frozenClock } from '../testing/frozen-clock';
import { slotHoldingJob } from '../../test/slot-holding-job';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import type { JobWorker } from './worker-options';

const QUEUE = 'hand-off-side';
const { handle: noop, name: NAME, ran, finishTwo, reset } = slotHoldingJob(QUEUE);

/** Lets promise chains and immediate callbacks run. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("a worker's hand-off side meeting a claim of its own on the wire", () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    finishTwo();
    await h?.close();
    h = undefined;
    reset();
  });

  /**
   * A worker at `concurrency` (1 unless given) whose claims can be held on the wire (`hold()`; `release()` lets them reach the memory
   * driver), the memory driver under it, and a row claimed for it as a backend's hand-off claims one.
   */
  async function start(concurrency = 1) {
    const clock = frozenClock();
    const inner = memoryJobDriver({ clock });
    let gate: Promise<void> | undefined;
    let open: () => void = () => undefined;
    const driver: JobDriver = {
      ...inner,
      claim: async (o) => {
        await gate;
        return inner.claim(o);
      },
      claimRescuing: async (o, r) => {
        await gate;
        return inner.claimRescuing(o, r);
      },
    };
    h = await runJobs({ jobs: [noop], clock, driver, concurrency, installFacade: false });
    await settle();
    const worker = h.worker as JobWorker & { readonly handOff: WakeHandOff };
    const enqueue = async (n: number): Promise<string> =>
      (
        await inner.enqueue(
          enqueueRequest({ name: NAME, queue: QUEUE, input: { n }, runAt: clock.now() }),
        )
      ).id;
    return {
      inner,
      worker,
      enqueue,
      hold: () => (gate = new Promise<void>((resolve) => (open = resolve))),
      release: () => {
        gate = undefined;
        open();
      },
      handed: async (id: string) => {
        const [row] = await inner.claim({
          workerId: worker.id,
          visibilityTimeoutMs: 30_000,
          slots: [{ queue: QUEUE, limit: 1 }],
        });
        expect(row?.id).toBe(id);
        return row!;
      },
    };
  }

  it('starts a lone row handed to an idle worker inside the takeClaimed call: its body runs before it returns', async () => {
    const s = await start();
    const id = await s.enqueue(1);
    s.worker.handOff.takeClaimed([await s.handed(id)]);
    expect(ran).toEqual([1]);
    await settle();
    expect(await s.inner.get(id)).toMatchObject({ state: 'done', attempt: 1 });
    expect(s.worker.stats()).toMatchObject({ claimed: 1, completed: 1 });
  });

  it('waits for that claim, and runs once the claim came back without a row', async () => {
    const s = await start();
    s.hold();
    s.worker.signalEnqueued(QUEUE);
    await settle();
    const id = await s.enqueue(1);
    s.worker.handOff.takeClaimed([await s.handed(id)]);
    await settle();
    // its slot is the claim's on the wire until that claim answers: neither started nor given back yet
    expect(ran).toEqual([]);
    expect(await s.inner.get(id)).toMatchObject({ state: 'running', attempt: 1 });
    s.release();
    await settle();
    expect(ran).toEqual([1]);
    expect((await s.inner.get(id))?.state).toBe('done');
  });

  it('is handed back uncounted when that claim filled the slot', async () => {
    const s = await start();
    s.hold();
    s.worker.signalEnqueued(QUEUE);
    await settle();
    const handedId = await s.enqueue(1);
    const row = await s.handed(handedId);
    const claimedId = await s.enqueue(2);
    s.worker.handOff.takeClaimed([row]);
    s.release();
    await settle();
    // the claim's row holds the one slot: the handed row goes back, first in line again, and runs after
    expect(ran).toEqual([2]);
    expect(await s.inner.get(handedId)).toMatchObject({ state: 'ready', attempt: 0 });
    finishTwo();
    await settle();
    expect((await s.inner.get(claimedId))?.state).toBe('done');
  });

  it('offers nothing while that claim is out, though a run freed a slot meanwhile', async () => {
    const s = await start(2);
    await s.enqueue(2);
    s.worker.signalEnqueued(QUEUE);
    await settle();
    expect(ran).toEqual([2]);
    s.hold();
    s.worker.signalEnqueued(QUEUE);
    await settle();
    // the claim for the other slot is on the wire when the run gives its slot back
    finishTwo();
    await settle();
    const whileOut = s.worker.handOff.offers();
    s.release();
    await settle();
    expect(whileOut).toEqual([]);
    expect(s.worker.handOff.offers()).toEqual([{ queue: QUEUE, free: 2, names: [NAME] }]);
  });
});

describe("a worker's idle, as its hand-off side hears it", () => {
  it('is told once the empty claim is off the wire: what the listener reads then offers every free slot', async () => {
    const clock = frozenClock();
    const h = await runJobs({ jobs: [noop], clock, concurrency: 3, installFacade: false });
    try {
      await settle();
      const { handOff } = h.worker as JobWorker & { readonly handOff: WakeHandOff };
      // a backend's hand-off reads the offers when it hears the worker went idle, and registers what they say
      const heard: unknown[] = [];
      const off = handOff.onIdle(() => heard.push(handOff.offers()));
      h.worker.signalEnqueued(QUEUE);
      await settle();
      off();
      expect(heard).toEqual([[{ queue: QUEUE, free: 3, names: [NAME] }]]);
    } finally {
      await h.close();
    }
  });
});
