import type { BackendWakeTarget, JobsBackend, WakeHandOff } from '../../driver/backend';
import { claimOf, type ClaimedJob } from '../../driver/job-row';
import { silentLogger } from '../../util/logger';
import type { FrozenClock } from '../frozen-clock';
import { useHarness, Q, VT, type Harness } from './harness';

/** The worker the suite registers. */
const HANDED = 'hand-off-worker';
/** The harness's job name: the one the worker says it serves. */
const NAME = 'conformance.job';

/** Waits (real time: the backend answers in real time) until `check` holds, or fails naming `what`. */
async function poll(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`conformance: ${what} within 5 s`);
}

/** A worker's hand-off side that always offers `free` slots of the harness's queue and keeps what it is given. */
interface FakeWorker {
  readonly target: BackendWakeTarget;
  readonly taken: ClaimedJob[];
  offered: number;
}

function fakeWorker(free: number): FakeWorker {
  const taken: ClaimedJob[] = [];
  const handOff: WakeHandOff = {
    workerId: HANDED,
    visibilityTimeoutMs: VT,
    offers: () => {
      fake.offered++;
      return [{ queue: Q, free, names: [NAME] }];
    },
    takeClaimed: (rows) => taken.push(...rows),
    onIdle: () => () => undefined,
  };
  const fake: FakeWorker = {
    taken,
    offered: 0,
    target: { signalEnqueued: () => undefined, setWakeLive: () => undefined, handOff },
  };
  return fake;
}

/**
 * The hand-off's guarantees, through the backend alone: a worker started with `startWake` and a `handOff` side is
 * registered, and an enqueue of a row due now with nothing ahead claims it for that worker — a claim like any other
 * (attempt 1, the worker, a token that fences) — and gives it to `takeClaimed`; a row handed to a worker that never
 * settles it (it died) is rescued when its lease lapses; a stopped worker is handed nothing more, and every row handed
 * to it was either given to it or is back in its queue uncounted. Each test makes a fresh backend over EMPTY storage.
 */
export function handOffConformance(
  name: string,
  makeBackend: (clock: FrozenClock) => Promise<JobsBackend> | JobsBackend,
): void {
  describe(`hand-off conformance: ${name}`, () => {
    let backend: JobsBackend | undefined;
    const h = useHarness(async (clock) => (backend = await makeBackend(clock)).driver);
    afterEach(async () => {
      const closing = backend;
      backend = undefined;
      await closing?.close();
    });

    /** Starts the fake's hand-off, runs `body`, and always stops it. */
    const withHandOff = async (
      fake: FakeWorker,
      body: (stop: () => Promise<void>) => Promise<void>,
    ): Promise<void> => {
      const started = backend?.startWake?.(fake.target, silentLogger);
      if (started === undefined) throw new Error('conformance: the backend has no startWake');
      try {
        await body(() => started.stop());
      } finally {
        await started.stop();
      }
    };

    it('claims a row due now for the registered worker inside its enqueue, fenced on its own token', async () => {
      const fake = fakeWorker(2);
      await withHandOff(fake, async () => {
        const handed = await handOne(h, fake);
        expect(handed).toMatchObject({ workerId: HANDED, attempt: 1, state: 'running' });
        expect(await h.driver().get(handed.id)).toMatchObject({
          state: 'running',
          workerId: HANDED,
          claim: handed.claim,
        });
        const own = claimOf(handed);
        const stale = { ...own, claim: `${own.claim}-stale` };
        expect(await h.driver().heartbeat(handed.id, own, VT)).toBe(true);
        expect(await h.driver().heartbeat(handed.id, stale, VT)).toBe(false);
        expect(await h.driver().ack(handed.id, stale)).toBe(false);
        expect(await h.driver().ack(handed.id, own)).toBe(true);
        expect(await h.driver().ack(handed.id, own)).toBe(false);
        expect((await h.driver().get(handed.id))?.state).toBe('done');
      });
    });

    it("rescues a handed row its worker never settled (it died) once the lease lapses, and fences the worker's token", async () => {
      const fake = fakeWorker(1);
      await withHandOff(fake, async () => {
        const handed = await handOne(h, fake);
        await h.clock().advance(VT - 1);
        expect(await h.claim({ workerId: 'worker-b', rescue: true })).toEqual([]);
        await h.clock().advance(1);
        const [again] = await h.claim({ workerId: 'worker-b', rescue: true });
        expect(again).toMatchObject({ id: handed.id, attempt: 2, workerId: 'worker-b' });
        expect(await h.driver().ack(handed.id, claimOf(handed))).toBe(false);
        expect(await h.driver().ack(handed.id, claimOf(again!))).toBe(true);
      });
    });

    it('hands a stopped worker nothing, and every row handed to it was given to it or is back uncounted', async () => {
      const fake = fakeWorker(5);
      await withHandOff(fake, async (stop) => {
        await handOne(h, fake);
        // rows enqueued while the worker stops: each is given to it, or waits in the queue as never claimed
        const racing = Promise.all([1, 2, 3, 4, 5].map(() => h.enqueue()));
        await stop();
        const ids = (await racing).map((r) => r.id);
        const given = new Set(fake.taken.map((r) => r.id));
        for (const id of ids) {
          const row = await h.driver().get(id);
          if (given.has(id)) expect(row).toMatchObject({ state: 'running', workerId: HANDED });
          else expect(row).toMatchObject({ state: 'ready', attempt: 0 });
        }
        const after = await h.enqueue();
        expect(await h.driver().get(after.id)).toMatchObject({ state: 'ready', attempt: 0 });
      });
    });
  });
}

/**
 * Enqueues rows until one is handed to the fake worker (its registration may still be on its way for the first ones:
 * those are claimed away by another worker, so nothing waits ahead of the next), and answers the row it was given.
 */
async function handOne(h: Harness, fake: FakeWorker): Promise<ClaimedJob> {
  await poll(() => fake.offered > 0, 'the worker was not asked what it can take');
  for (let i = 0; i < 200; i++) {
    const request = await h.enqueue();
    const row = await h.driver().get(request.id);
    if (row?.state === 'running' && row.workerId === HANDED) {
      await poll(() => fake.taken.some((r) => r.id === request.id), 'a handed row was not given');
      return fake.taken.find((r) => r.id === request.id)!;
    }
    for (const claimed of await h.claim({ workerId: 'worker-b' })) {
      await h.driver().ack(claimed.id, claimOf(claimed));
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('conformance: no row was handed to the registered worker');
}
