import {
  backfill,
  memoryBackfillLedger,
  type BackfillInput,
  type BackfillLedger,
  type BackfillResult,
  type JobSettled,
} from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { BfPost } from '../../test/backfill-posts';
import { drive, postsSpec, resultOf } from '../../test/posts-spec';

const posts = postsSpec({ seed: 25 });

let seq = 0;
type Faults = Partial<Pick<BackfillLedger, 'progress' | 'finish'>>;

/**
 * A pass of every post (10 a page) recording into a memory ledger with `faults` in place of some of its writes; its
 * handle throws `fail` when given. Answers the ledger, the ids handled and how the pass settled.
 */
async function sweep(faults: (ledger: BackfillLedger) => Faults, fail?: Error) {
  const clock = frozenClock();
  const inner = memoryBackfillLedger();
  const ledger: BackfillLedger = { ...inner, ...faults(inner) };
  const handled: number[] = [];
  const settled: JobSettled<BackfillInput, BackfillResult>[] = [];
  const handle = backfill<BfPost>({
    name: `ledger-down-${++seq}`,
    batch: 10,
    rate: 1_000,
    tenant: 'none',
    clock,
    retry: { attempts: 2, backoff: 'fixed', delay: 100, jitter: false },
    runtime: { ledger, environment: 'test' },
    source: () => posts.data.getRepository(BfPost).createQueryBuilder('p'),
    handle: ({ rows }) => {
      if (fail !== undefined) throw fail;
      handled.push(...rows.map((r) => r.id));
    },
    onSettled: (s) => void settled.push(s),
  });
  const harness = await posts.runJobs({ jobs: [handle], clock });
  const { id } = await handle.enqueue({});
  await drive(harness, () => settled.length > 0, 50);
  return { id, inner, handled, settled: settled[0], harness };
}

const every = Array.from({ length: 25 }, (_, i) => i + 1);

describe('a backfill whose ledger cannot be written', () => {
  it('keeps each page when a progress write fails: the row is a report, logged, never a reason to redo a page', async () => {
    const pass = await sweep(() => ({ progress: () => Promise.reject(new Error('ledger down')) }));
    expect(resultOf(pass.settled)).toMatchObject({ rows: 25, batches: 3, skipped: false });
    expect(pass.handled).toEqual(every);
    expect(await pass.inner.byJob(pass.id)).toMatchObject({ status: 'completed', rows: 25 });
    const warned = pass.harness.logger.named('jobs.backfill.ledger-failed');
    expect(warned.map((e) => e.fields)).toEqual(
      Array.from({ length: 3 }, () => expect.objectContaining({ write: 'progress' })),
    );
  });

  it("fails with the handle's own error when recording the failure fails too", async () => {
    const broke = new Error('the handle broke');
    const pass = await sweep(
      (inner) => ({
        finish: (id, status, progress, error) =>
          status === 'failed'
            ? Promise.reject(new Error('ledger down'))
            : inner.finish(id, status, progress, error),
      }),
      broke,
    );
    expect(pass.settled).toMatchObject({
      outcome: 'dead-lettered',
      error: expect.stringContaining('the handle broke') as unknown,
    });
    expect(pass.settled).not.toMatchObject({
      error: expect.stringContaining('ledger down') as unknown,
    });
    expect(pass.harness.logger.named('jobs.backfill.ledger-failed')).not.toEqual([]);
  });

  it('a retry after a completion whose acknowledgement was lost adopts its own row, and reports the sweep', async () => {
    let lost = false;
    const pass = await sweep((inner) => ({
      // the row is written completed, then the connection drops before the pass hears back: once
      finish: async (id, status, progress, error) => {
        await inner.finish(id, status, progress, error);
        if (status === 'completed' && !lost) {
          lost = true;
          throw new Error('connection reset after commit');
        }
      },
    }));
    expect(lost).toBe(true);
    expect((await pass.harness.driver.get(pass.id))?.attempt).toBe(2);
    expect(resultOf(pass.settled)).toEqual({
      name: expect.any(String),
      rows: 25,
      batches: 3,
      skipped: false,
      previousRunId: null,
    });
    expect(pass.handled).toEqual(every);
    expect(await pass.inner.list()).toHaveLength(1);
  });
});
