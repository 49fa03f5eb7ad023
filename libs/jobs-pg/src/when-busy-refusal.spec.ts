import { job, JobRegistry, jobWorker, prepareEnqueue, t, type JobWorker } from '@ultimat3/jobs';
import { until } from '../../../test/until';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { postgresJobDriver } from './driver/pg-driver';

/**
 * A `whenBusy: 'fail'` refusal over a busy concurrency key: the body never started, the outcome is `refused`, and
 * no attempt is counted — on the statements that carry it: SQL_CLAIM counts the claim, SQL_NACK hands it back.
 */
describe("a whenBusy: 'fail' refusal on PostgreSQL", () => {
  let worker: JobWorker | undefined;
  const held: (() => void)[] = [];
  const ran: number[] = [];

  const sync = job({
    name: 'busy.pg',
    queue: 'busy',
    input: t.object({ account: t.string, n: t.number }),
    idempotencyKey: ({ n }) => `n:${n}`,
    tenant: 'none',
    retry: { attempts: 1 },
    concurrency: { key: ({ account }) => account, limit: 1, whenBusy: 'fail' },
    run: ({ input }) => {
      ran.push(input.n);
      if (input.n === 1) return new Promise<void>((resolve) => held.push(resolve));
      return undefined;
    },
  });

  const db = pgJobsSpec({
    beforeDrop: async () => {
      for (const resolve of held.splice(0)) resolve();
      await worker?.stop();
    },
  });

  it('settles the refused row failed with X_JOB_KEY_BUSY and attempt 0: no attempt counted', async () => {
    const driver = postgresJobDriver({ executor: db.executor });
    const registry = new JobRegistry();
    registry.register(sync);
    worker = jobWorker({ driver, registry, concurrency: 4 });
    await worker.start();
    const enqueue = async (n: number): Promise<string> => {
      const request = await prepareEnqueue(sync, { account: 'acct', n }, {}, undefined, Date.now());
      await driver.enqueue(request);
      worker?.signalEnqueued('busy');
      return request.id;
    };
    const row = (id: string) =>
      db.pool
        .query<{ state: string; attempt: number; last_error: string | null }>(
          'select state, attempt, last_error from x_jobs where id = $1',
          [id],
        )
        .then((r) => r.rows[0]);

    const holder = await enqueue(1);
    await until(() => ran.includes(1));
    const refused = await enqueue(2);
    await until(async () => (await row(refused))?.state === 'failed');

    const settled = await row(refused);
    expect(settled).toMatchObject({ state: 'failed', attempt: 0 });
    expect(settled?.last_error).toContain('X_JOB_KEY_BUSY');
    expect(ran).toEqual([1]);
    expect(worker.stats().refused).toBe(1);
    expect(await row(holder)).toMatchObject({ state: 'running', attempt: 1 });

    for (const resolve of held.splice(0)) resolve();
    await until(async () => (await row(holder))?.state === 'done');
  });
});
