import { claimOf, job, t, type ClaimedJob } from '@ultimat3/jobs';
import { frozenClock, runJobs } from '@ultimat3/jobs/testing';
import { request } from '../test/requests';
import { until } from '../../../test/until';
import { JOB_TABLES } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { postgresJobDriver } from './driver/pg-driver';

const add = job({
  name: 'pg-bad-row.add',
  queue: 'pg-adds',
  input: t.object({ n: t.number }),
  idempotencyKey: ({ n }) => `add:${n}`,
  tenant: 'none',
  retry: { attempts: 3 },
  run: ({ input }) => Promise.resolve(input.n + 1),
});

describe('PostgreSQL batches with one bad row: the others go through', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });

  it('batched ack: an item that cannot name a claim answers false alone; the rest of the statement lands', async () => {
    const clock = frozenClock(Date.now());
    const driver = postgresJobDriver({ executor: db.executor, clock });
    for (let i = 0; i < 4; i++) await driver.enqueue(request({ runAt: clock.now() }));
    const rows: readonly ClaimedJob[] = await driver.claim({
      workerId: 'w',
      slots: [{ queue: 'pg-q', limit: 4 }],
      visibilityTimeoutMs: 30_000,
    });
    expect(rows).toHaveLength(4);
    const items = rows.map((r, i) => ({
      jobId: r.id,
      ...claimOf(r),
      ...(i === 1 ? { claim: 'not-a-claim-token' } : {}),
    }));
    expect(await driver.ackMany!(items)).toEqual([true, false, true, true]);
    const states = await Promise.all(rows.map(async (r) => (await driver.get(r.id))?.state));
    expect(states).toEqual(['done', 'running', 'done', 'done']);
  });

  it('claim: a row whose stored input the job refuses fails alone; the rest of the batch runs', async () => {
    const clock = frozenClock(Date.now());
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = request({
        name: add.name,
        queue: add.queue,
        input: { n: i === 2 ? 'two' : i },
        runAt: clock.now(),
      });
      ids.push(r.id);
      await driver.enqueue(r);
    }
    const h = await runJobs({ jobs: [add], driver, clock, installFacade: false });
    try {
      const states = async () => Promise.all(ids.map(async (id) => (await driver.get(id))?.state));
      await until(
        async () => !(await states()).some((s) => s === 'ready' || s === 'running'),
        5_000,
      );
      expect(await states()).toEqual(['done', 'done', 'delayed', 'done', 'done']);
      expect((await driver.get(ids[2]!))?.lastError).toMatch(/^X_JOB_INPUT_INVALID/);
    } finally {
      await h.close();
    }
  });
});
