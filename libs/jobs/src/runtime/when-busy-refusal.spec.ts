import { job } from '../declare/job';
import { t } from '../schema';
import { runJobs, type JobsHarness } from '../testing/run-jobs';

const input = t.object({ account: t.string, n: t.number });

/**
 * A `whenBusy: 'fail'` refusal over a busy concurrency key: the body never started, the outcome is `refused`, and
 * no attempt is counted. The row keeps the attempts its body actually had.
 */
describe("a whenBusy: 'fail' refusal counts no attempt (memory driver)", () => {
  let h: JobsHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('a first claim refused leaves attempt 0; a retry refused keeps the attempts the body had', async () => {
    const held: (() => void)[] = [];
    const seen: { n: number; attempt: number }[] = [];
    const sync = job({
      name: 'busy.refusal',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      retry: { attempts: 3, backoff: 'fixed', delay: 1_000, jitter: false },
      concurrency: { key: ({ account }) => account, limit: 1, whenBusy: 'fail' },
      run: ({ input: i, attempt }) => {
        seen.push({ n: i.n, attempt });
        // n >= 100 holds the key until the test lets it go; n = 3 fails its first attempt.
        if (i.n >= 100) return new Promise<void>((resolve) => held.push(resolve));
        if (i.n === 3 && attempt === 1) throw new Error('transient');
        return undefined;
      },
    });
    h = await runJobs({ jobs: [sync], concurrency: 4 });
    const letGo = async (): Promise<void> => {
      for (const resolve of held.splice(0)) resolve();
      await h?.settle();
    };

    await sync.enqueue({ account: 'acct', n: 100 });
    await h.settle();
    const refused = await sync.enqueue({ account: 'acct', n: 2 });
    await h.settle();
    const row = await h.driver.get(refused.id);
    expect(row).toMatchObject({ state: 'failed', attempt: 0 });
    expect(row?.lastError).toContain('X_JOB_KEY_BUSY');

    // A run that failed once on a free key, then meets a held key on its retry: its attempt stays 1.
    await letGo();
    const retried = await sync.enqueue({ account: 'acct', n: 3 });
    await h.settle();
    expect(await h.driver.get(retried.id)).toMatchObject({ state: 'delayed', attempt: 1 });
    await sync.enqueue({ account: 'acct', n: 101 });
    await h.settle();
    await h.advance(1_000);
    expect(await h.driver.get(retried.id)).toMatchObject({ state: 'failed', attempt: 1 });

    expect(seen.filter((s) => s.n === 2)).toEqual([]);
    expect(seen.filter((s) => s.n === 3)).toEqual([{ n: 3, attempt: 1 }]);
    expect(h.worker.stats().refused).toBe(2);
    expect(h.logger.named('jobs.attempt.refused')).toHaveLength(2);
    await letGo();
  });

  it("whenBusy 'wait' hands the run back as delayed (due one poll later), attempt uncounted, until the key frees", async () => {
    const held: (() => void)[] = [];
    const wait = job({
      name: 'busy.wait',
      input,
      idempotencyKey: ({ n }) => `n:${n}`,
      tenant: 'none',
      concurrency: { key: ({ account }) => account, limit: 1 },
      run: ({ input: i }) =>
        i.n === 1 ? new Promise<void>((resolve) => held.push(resolve)) : undefined,
    });
    h = await runJobs({ jobs: [wait], concurrency: 4 });
    await wait.enqueue({ account: 'acct', n: 1 });
    await h.settle();
    const waiting = await wait.enqueue({ account: 'acct', n: 2 });
    await h.settle();

    const row = await h.driver.get(waiting.id);
    expect(row).toMatchObject({ state: 'delayed', attempt: 0, lastError: null });
    expect(row?.runAt).toBe(h.clock.now() + 250);
    const [stats] = await h.driver.stats();
    expect(stats).toMatchObject({ delayed: 1, running: 1, ready: 0 });

    for (const resolve of held.splice(0)) resolve();
    await h.advance(250);
    expect(await h.driver.get(waiting.id)).toMatchObject({ state: 'done', attempt: 1 });
  });
});
