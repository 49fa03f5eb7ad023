import {
  backfill,
  memoryBackfillLedger,
  type BackfillInput,
  type BackfillResult,
  type JobSettled,
} from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { BfPost, seedPosts } from '../../test/backfill-posts';
import { drive, postsSpec, realPause, resultOf } from '../../test/posts-spec';

const posts = postsSpec();

let seq = 0;

describe('the backfill throttle on PostgreSQL', () => {
  it('pauses inside each page on the driven clock: the next page is read only once 1/rate has passed', async () => {
    await seedPosts(posts.data, 25);
    const clock = frozenClock();
    const reads: number[] = [];
    const settled: JobSettled<BackfillInput, BackfillResult>[] = [];
    const handle = backfill<BfPost>({
      name: `throttled-${++seq}`,
      batch: 10,
      rate: 2,
      tenant: 'none',
      clock,
      source: () => {
        reads.push(clock.now());
        return posts.data.getRepository(BfPost).createQueryBuilder('p');
      },
      handle: () => undefined,
      onSettled: (s) => void settled.push(s),
    });
    const harness = await posts.runJobs({ jobs: [handle], clock });
    /** Lets the database answer without moving the clock. */
    const until = async (cond: () => boolean) => {
      for (let i = 0; i < 500 && !cond(); i++) {
        await harness.settle();
        await realPause(4);
      }
      expect(cond()).toBe(true);
    };
    await handle.enqueue({});
    await until(() => reads.length === 1);
    const t0 = reads[0] as number;
    await harness.advance(499);
    await realPause(50);
    await harness.settle();
    expect(reads).toEqual([t0]);
    await harness.advance(1);
    await until(() => reads.length === 2);
    expect(reads).toEqual([t0, t0 + 500]);
    await harness.advance(500);
    await until(() => reads.length === 3);
    // the third page (5 rows) is short, so it ends the pass: nothing more is read, and no pause follows it
    expect(reads).toEqual([t0, t0 + 500, t0 + 1_000]);
    await harness.advance(500);
    await realPause(20);
    await harness.settle();
    expect(reads).toHaveLength(3);
    await drive(harness, () => settled.length > 0, 1);
    expect(resultOf(settled[0])).toMatchObject({ rows: 25, batches: 3 });
  });

  it('unwinds at once when the run is cancelled mid-pause, instead of sitting in a timer nobody waits for', async () => {
    await seedPosts(posts.data, 25);
    const clock = frozenClock();
    const ledger = memoryBackfillLedger();
    let reads = 0;
    const handle = backfill<BfPost>({
      name: `cancelled-${++seq}`,
      batch: 10,
      rate: 0.001, // one page every 1,000 s: the pass sits in the pause before its second page
      tenant: 'none',
      clock,
      runtime: { ledger, environment: 'test' },
      source: () => {
        reads += 1;
        return posts.data.getRepository(BfPost).createQueryBuilder('p');
      },
      handle: () => undefined,
    });
    const harness = await posts.runJobs({ jobs: [handle], clock });
    const { id } = await handle.enqueue({});
    for (let i = 0; i < 500 && (await ledger.byJob(id))?.batches !== 1; i++) {
      await harness.settle();
      await realPause(4);
    }
    expect(await ledger.byJob(id)).toMatchObject({ status: 'running', batches: 1 });

    await harness.driver.introspect?.cancel(id, 'operator stopped the sweep');
    // the next heartbeat (a third of the 30 s visibility timeout) finds the lease gone and aborts the run's signal
    await harness.advance(10_000);
    for (let i = 0; i < 500 && (await ledger.byJob(id))?.status !== 'failed'; i++) {
      await harness.settle();
      await realPause(4);
    }
    const row = await ledger.byJob(id);
    expect(row?.status).toBe('failed');
    expect(row?.lastError).toContain('X_JOB_LEASE_LOST');
    expect(reads).toBe(1); // the second page was never read: the pass left the pause, 990 s before it was due
    expect((await harness.driver.get(id))?.state).toBe('cancelled');
  });
});
