import { claimOf, type AckManyItem, type ClaimedJob, type Clock } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { request } from '../test/requests';
import { JOB_TABLES } from '../test/test-database';
import { pgJobsSpec } from '../test/pg-jobs-spec';
import { postgresJobDriver, type PostgresJobDriver } from './driver/pg-driver';

const VT = 30_000;

/** `n` rows enqueued due now on `clock` and claimed by worker `w`. */
async function claimed(driver: PostgresJobDriver, clock: Clock, n: number): Promise<ClaimedJob[]> {
  await driver.enqueueMany(Array.from({ length: n }, () => request({ runAt: clock.now() })));
  const rows = await driver.claim({
    workerId: 'w',
    slots: [{ queue: 'pg-q', limit: n }],
    visibilityTimeoutMs: VT,
  });
  expect(rows).toHaveLength(n);
  return [...rows];
}

/**
 * A run is fenced on its `ClaimRef` — the claim token AND the claiming worker — as the memory driver fences it: the
 * right token under another worker id moves nothing. `ackMany` fences each item "exactly as `ack` is", on its own
 * worker, whatever other workers the batch names.
 */
describe('PostgreSQL fences a run on its claiming worker as well as its claim (driven clock)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });
  const clock = frozenClock(Date.UTC(2026, 0, 1));

  it('a nack, a heartbeat, a progress or a step naming the right claim under another worker answers false, moving nothing', async () => {
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const [row] = await claimed(driver, clock, 1);
    if (row === undefined) throw new Error('nothing claimed');
    const other = { ...claimOf(row), workerId: 'other' };
    await clock.advance(1_000);
    expect(await driver.nack(row.id, { ...other, kind: 'dead', error: 'x' })).toBe(false);
    expect(await driver.heartbeat(row.id, other, 60_000)).toBe(false);
    expect(await driver.recordProgress(row.id, other, { done: 1, total: 2 })).toBe(false);
    const step = {
      name: 's',
      output: 1,
      attempt: 1,
      startedAt: clock.now(),
      completedAt: clock.now(),
    };
    expect(await driver.steps.save(row.id, other, step)).toBe(false);
    expect(await driver.steps.load(row.id)).toEqual([]);
    expect(await driver.get(row.id)).toMatchObject({
      state: 'running',
      workerId: 'w',
      claim: row.claim,
      leaseExpiresAt: row.leaseExpiresAt,
      progress: null,
      lastError: null,
    });
  });

  it('a batched ack lands no item naming the right claim under another worker, whatever else the batch names', async () => {
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const rows = await claimed(driver, clock, 3);
    const item = (i: number, workerId = 'w'): AckManyItem => {
      const row = rows[i] as ClaimedJob;
      return { jobId: row.id, ...claimOf(row), workerId };
    };
    // a batch naming only another worker, then one where worker `w` is named by the other items
    expect(await driver.ackMany!([item(0, 'other'), item(1, 'other')])).toEqual([false, false]);
    expect(await driver.ackMany!([item(1, 'other'), item(0), item(2)])).toEqual([
      false,
      true,
      true,
    ]);
    const states = await Promise.all(rows.map(async (r) => (await driver.get(r.id))?.state));
    expect(states).toEqual(['done', 'running', 'done']);
    expect(await driver.ackMany!([item(1), item(0)])).toEqual([true, false]);
  });

  it('an item that cannot hold a row does not shadow a later item of its id, in a batch of one worker or of several', async () => {
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const rows = await claimed(driver, clock, 3);
    const item = (i: number, workerId = 'w'): AckManyItem => {
      const row = rows[i] as ClaimedJob;
      return { jobId: row.id, ...claimOf(row), workerId };
    };
    const malformed = (i: number, workerId: string): AckManyItem => ({
      ...item(i, workerId),
      claim: 'not-a-claim',
    });
    expect(await driver.ackMany!([malformed(0, 'w'), item(0), item(1)])).toEqual([
      false,
      true,
      true,
    ]);
    expect(await driver.ackMany!([malformed(2, 'other'), item(2)])).toEqual([false, true]);
    const states = await Promise.all(rows.map(async (r) => (await driver.get(r.id))?.state));
    expect(states).toEqual(['done', 'done', 'done']);
  });
});
