import { job } from '../declare/job';
import { t } from '../schema';
import { runJobs, type JobsHarness } from '../testing/run-jobs';
import { gate } from '../testing/test-kit';

const input = t.object({ account: t.string, n: t.number });

describe('a run a cap handed back (job.concurrency, whenBusy: wait)', () => {
  let h: JobsHarness | undefined;
  let holder = gate();
  afterEach(async () => {
    holder.open();
    await h?.close();
    h = undefined;
  });

  it('asks for no claim when it ends: its row comes back at its due time, one poll later', async () => {
    holder = gate();
    const ran: number[] = [];
    const keyed = job({
      name: 'deferral.keyed',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      concurrency: { key: ({ account }) => account, limit: 1 },
      run: async ({ input: i }) => {
        ran.push(i.n);
        if (i.n === 1) await holder.promise;
      },
    });
    h = await runJobs({ jobs: [keyed], pollIntervalMs: 250 });
    await keyed.enqueue({ account: 'acct-1', n: 1 });
    await h.settle();
    const claims = h.worker.stats().claims;

    const second = await keyed.enqueue({ account: 'acct-1', n: 2 });
    await h.settle();
    // the enqueue's claim took the row and the key was busy: handed back, due after one poll. An immediate pass
    // would only claim capped rows again (or nothing: this one is not due yet).
    expect(h.worker.stats()).toMatchObject({ claims: claims + 1, deferred: 1 });
    expect(await h.driver.get(second.id)).toMatchObject({ state: 'delayed', attempt: 0 });
    holder.open();
    await h.settle();
    await h.advance(249);
    expect(ran).toEqual([1]);
    await h.advance(1);
    expect(ran).toEqual([1, 2]);
    expect(await h.driver.get(second.id)).toMatchObject({ state: 'done', attempt: 1 });
  });
});
