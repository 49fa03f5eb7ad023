import {
  backfill,
  directJobsFacade,
  jobWorker,
  JobRegistry,
  memoryBackfillLedger,
  memoryJobDriver,
  setJobsFacade,
  type Clock,
} from '@ultimat3/jobs';
import { frozenClock, type FrozenClock } from '@ultimat3/jobs/testing';
import { BfPost } from '../../test/backfill-posts';
import { postsSpec, realPause } from '../../test/posts-spec';

const posts = postsSpec({ seed: 100 });

/** Moves `clock` in 1 ms hops, letting the database answer between them, until `done` holds. */
async function until(clock: FrozenClock, done: () => boolean, hopMs = 1) {
  for (let i = 0; i < 5_000 && !done(); i++) {
    await clock.advance(hopMs);
    await realPause(1);
  }
  expect(done()).toBe(true);
}

describe('a backfill whose worker dies mid-page', () => {
  it('is rescued by another worker that resumes at the stored cursor, handling no checkpointed page again', async () => {
    // Worker A runs on a clock nobody moves once it hangs, so it never heartbeats again: to the queue it is a dead
    // process. The queue (the memory driver) and worker B share the other clock, which moves past A's lease.
    const clockA = frozenClock();
    const clockB = frozenClock(clockA.now());
    let active: FrozenClock = clockA;
    const paceClock: Clock = {
      now: () => active.now(),
      setTimeout: (fn, ms) => active.setTimeout(fn, ms),
    };
    const driver = memoryJobDriver({ clock: clockB });
    const ledger = memoryBackfillLedger();
    const pages: { worker: string; ids: number[] }[] = [];
    let reads = 0;
    let worker = 'A';
    const sweep = backfill<BfPost>({
      name: 'crash-slugs',
      batch: 10,
      rate: 1_000,
      tenant: 'none',
      clock: paceClock,
      runtime: { ledger, environment: 'test' },
      source: () => {
        reads += 1;
        return posts.data.getRepository(BfPost).createQueryBuilder('p');
      },
      async handle({ rows }) {
        const ids = rows.map((r) => r.id);
        pages.push({ worker, ids });
        // the fourth page A reads is where its process "dies": it never returns, and nothing it holds is released
        if (worker === 'A' && pages.length === 4) await new Promise(() => undefined);
        await posts.data.query(
          'update bf_posts set handled = handled + 1 where id = any($1::int[])',
          [ids],
        );
      },
    });
    const registry = new JobRegistry();
    registry.register(sweep);
    const timing = {
      visibilityTimeoutMs: 30_000,
      heartbeatIntervalMs: 10_000,
      pollIntervalMs: 100,
    };
    const a = jobWorker({ driver, registry, clock: clockA, workerId: 'worker-a', ...timing });
    const uninstall = setJobsFacade(
      directJobsFacade({ driver, clock: clockB, onEnqueued: (q) => a.signalEnqueued(q) }),
    );
    try {
      await a.start();
      const { id } = await sweep.enqueue({});
      await until(clockA, () => pages.length === 4);
      const before = await ledger.byJob(id);
      expect(before).toMatchObject({ status: 'running', rows: 30, batches: 3, lastCursor: [30] });
      expect(reads).toBe(4);

      // worker B starts; the queue's clock passes A's lease, B rescues the run and finishes the pass
      worker = 'B';
      active = clockB;
      const b = jobWorker({ driver, registry, clock: clockB, workerId: 'worker-b', ...timing });
      await b.start();
      await until(clockB, () => b.stats().completed === 1, 500);
      await b.stop();

      expect(pages.map((p) => `${p.worker}:${p.ids[0]}`)).toEqual([
        'A:1',
        'A:11',
        'A:21',
        'A:31', // A died in this page, before writing it
        'B:31', // B began on the page after the newest checkpoint
        'B:41',
        'B:51',
        'B:61',
        'B:71',
        'B:81',
        'B:91',
      ]);
      // B read no checkpointed page: 4 reads by A, then pages 3 … 9 and the empty read that ends a full last page
      expect(reads).toBe(4 + 8);
      const counts = await posts.data.query<{ handled: number; n: number }[]>(
        'select handled, count(*)::int as n from bf_posts group by 1',
      );
      expect(counts).toEqual([{ handled: 1, n: 100 }]);
      expect((await driver.get(id))?.attempt).toBe(2);
      expect(await ledger.byJob(id)).toMatchObject({
        id: before?.id,
        status: 'completed',
        rows: 100,
        batches: 10,
        startedAt: before?.startedAt,
      });
    } finally {
      uninstall();
    }
  });
});
