import {
  backfill,
  ledgerRunsOf,
  memoryBackfillLedger,
  pendingBackfills,
  memoryJobDriver,
  type BackfillInput,
  type BackfillResult,
  type JobDriver,
  type JobSettled,
} from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { BfPost, seedPosts } from '../../test/backfill-posts';
import { drive, postsSpec, realPause, resultOf } from '../../test/posts-spec';

const posts = postsSpec();

describe('a backfill drained mid-pass (a deploy)', () => {
  it('leaves its ledger row running, not failed: the run is handed back uncounted and the next worker finishes it', async () => {
    await seedPosts(posts.data, 25);
    const clock = frozenClock();
    const ledger = memoryBackfillLedger();
    const inner = memoryJobDriver({ clock });
    // kept open across the two workers below
    const driver: JobDriver = { ...inner, close: () => Promise.resolve() };
    const handled: number[] = [];
    const settled: JobSettled<BackfillInput, BackfillResult>[] = [];
    const sweep = backfill<BfPost>({
      name: 'drained-sweep',
      batch: 10,
      rate: 0.001, // one page every 1,000 s: the pass sits in the pause before its second page
      tenant: 'none',
      clock,
      runtime: { ledger, environment: 'test' },
      source: () => posts.data.getRepository(BfPost).createQueryBuilder('p'),
      handle: ({ rows }) => void handled.push(...rows.map((r) => r.id)),
      onSettled: (s) => void settled.push(s),
    });
    const first = await posts.runJobs({ jobs: [sweep], driver, clock });
    const { id } = await sweep.enqueue({});
    for (let i = 0; i < 500 && (await ledger.byJob(id))?.batches !== 1; i++) {
      await first.settle();
      await realPause(4);
    }
    expect(await ledger.byJob(id)).toMatchObject({ status: 'running', batches: 1 });

    // SIGTERM: the drain unwinds the pause at once, and the run goes back to the queue uncounted
    first.worker.beginDrain('SIGTERM');
    await first.worker.stop();
    expect(first.worker.stats()).toMatchObject({ interrupted: 1, inFlight: 0 });
    expect(await driver.get(id)).toMatchObject({ state: 'ready', attempt: 0 });
    // the pass is in flight still: not a failure for the deploy check to stop on
    expect(await ledger.byJob(id)).toMatchObject({ status: 'running', lastError: null });
    const report = pendingBackfills({ runs: await ledgerRunsOf(ledger), environment: 'test' });
    expect(report.pending).toEqual([]);
    await first.close();

    const second = await posts.runJobs({ jobs: [sweep], driver, clock });
    await drive(second, () => settled.length > 0, 1_000_000);
    expect(resultOf(settled[0])).toMatchObject({ rows: 25, batches: 3 });
    expect(handled).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(await ledger.byJob(id)).toMatchObject({
      status: 'completed',
      rows: 25,
      lastError: null,
    });
  });
});
