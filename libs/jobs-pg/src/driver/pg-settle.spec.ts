import { randomUUID } from 'node:crypto';
import { claimOf, type AckManyItem, type ClaimedJob, type EnqueueRequest } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { request } from '../../test/requests';
import { JOB_TABLES } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import type { PgExecutor } from '../executor/pg-executor';
import { SQL_ACK } from '../sql/ack.sql';
import { SQL_ACK_ONE } from '../sql/ack-one.sql';
import { postgresJobDriver } from './pg-driver';

const VT = 30_000;

/**
 * What `ack` and `ackMany` answer and write, item by item, on the real database: the id matched whatever its case,
 * each run's duration counted under its own job name, the driver's clock on every row, and the statement a batch of
 * one goes through (`SQL_ACK_ONE`, whose generic plan PostgreSQL keeps).
 */
describe('the PostgreSQL driver settles runs done (driven clock)', () => {
  const db = pgJobsSpec({ emptyBeforeEach: JOB_TABLES });
  const clock = frozenClock(Date.UTC(2026, 0, 1, 12, 0, 30));

  /** The statements of `SQL_ACK` and `SQL_ACK_ONE` the driver sent, in order, named `ack` and `ackOne`. */
  function logging(): { executor: PgExecutor; sent: string[] } {
    const sent: string[] = [];
    const executor: PgExecutor = {
      shared: true,
      query(text, values) {
        if (text === SQL_ACK) sent.push('ack');
        if (text === SQL_ACK_ONE) sent.push('ackOne');
        return db.executor.query(text, values);
      },
    };
    return { executor, sent };
  }

  /** `requests` enqueued due now and claimed by worker `w`, in the order they were enqueued. */
  async function running(
    driver: ReturnType<typeof postgresJobDriver>,
    requests: readonly EnqueueRequest[],
  ): Promise<ClaimedJob[]> {
    await driver.enqueueMany(requests);
    const rows = await driver.claim({
      workerId: 'w',
      slots: [{ queue: 'pg-q', limit: requests.length }],
      visibilityTimeoutMs: VT,
    });
    expect(rows).toHaveLength(requests.length);
    return requests.map((r) => rows.find((row) => row.id === r.id) as ClaimedJob);
  }

  /** `count` fresh requests on pg-q due now, job `name`. */
  const due = (count: number, name = 'pg.job') =>
    Array.from({ length: count }, () => request({ name, runAt: clock.now() }));

  const own = (row: ClaimedJob): AckManyItem => ({ jobId: row.id, ...claimOf(row) });

  it('sends a batch of one, and each worker named once, through SQL_ACK_ONE; a worker named twice through SQL_ACK', async () => {
    const { executor, sent } = logging();
    const driver = postgresJobDriver({ executor, clock });
    const rows = await running(driver, due(6));
    const row = (i: number) => rows[i] as ClaimedJob;
    expect(await driver.ack(row(0).id, claimOf(row(0)))).toBe(true);
    expect(await driver.ackMany!([own(row(1))])).toEqual([true]);
    expect(sent).toEqual(['ackOne', 'ackOne']);
    // worker `w` twice, worker `other` once (its item stale: the right claim under another worker)
    expect(
      await driver.ackMany!([own(row(2)), { ...own(row(3)), workerId: 'other' }, own(row(4))]),
    ).toEqual([true, false, true]);
    expect(sent).toEqual(['ackOne', 'ackOne', 'ack', 'ackOne']);
    const states = await Promise.all(rows.map(async (r) => (await driver.get(r.id))?.state));
    expect(states).toEqual(['done', 'done', 'done', 'running', 'done', 'running']);
  });

  it('answers false for an item whose id is in upper case and whose claim is stale, true for its own claim', async () => {
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const rows = await running(driver, due(3));
    const upper = (row: ClaimedJob, claim = row.claim): AckManyItem => ({
      ...own(row),
      jobId: row.id.toUpperCase(),
      claim,
    });
    const [a, b, c] = rows as [ClaimedJob, ClaimedJob, ClaimedJob];
    expect(await driver.ackMany!([upper(a, randomUUID()), upper(b), own(c)])).toEqual([
      false,
      true,
      true,
    ]);
    expect((await driver.get(a.id))?.state).toBe('running');
  });

  it('treats ids that differ only in case as one id: the first item lands, the repeat answers false', async () => {
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const [a, b] = (await running(driver, due(2))) as [ClaimedJob, ClaimedJob];
    const items = [{ ...own(a), jobId: a.id.toUpperCase() }, own(a), own(b)];
    expect(await driver.ackMany!(items)).toEqual([true, false, true]);
    expect(await driver.ackMany!([own(a)])).toEqual([false]);
  });

  it('answers false, sending nothing, for an id that is not a uuid, alone or in a batch', async () => {
    const { executor, sent } = logging();
    const driver = postgresJobDriver({ executor, clock });
    const [row] = (await running(driver, due(1))) as [ClaimedJob];
    const bad = { ...own(row), jobId: 'not-a-uuid' };
    expect(await driver.ack('not-a-uuid', claimOf(row))).toBe(false);
    expect(await driver.ackMany!([bad])).toEqual([false]);
    expect(sent).toEqual([]);
    expect(await driver.ackMany!([bad, own(row)])).toEqual([false, true]);
    expect(sent).toEqual(['ackOne']);
  });

  it("counts each run's duration under its own job name, in a batch and alone, in the minute of the driver's clock", async () => {
    const driver = postgresJobDriver({ executor: db.executor, clock });
    const [a1, a2, b1, b2] = (await running(driver, [...due(2, 'pg.a'), ...due(2, 'pg.b')])) as [
      ClaimedJob,
      ClaimedJob,
      ClaimedJob,
      ClaimedJob,
    ];
    expect(
      await driver.ackMany!([
        { ...own(a1), durationMs: 20 },
        { ...own(a2), durationMs: 300 },
        { ...own(b1), durationMs: 4_000 },
      ]),
    ).toEqual([true, true, true]);
    expect(await driver.ack(b2.id, { ...claimOf(b2), durationMs: 50_000 })).toBe(true);
    const { rows } = await db.pool.query<{ name: string; start: Date; done: number; ms: number }>(
      `select name, bucket_start as start, done::int, duration_ms::int as ms
       from x_job_counters order by name`,
    );
    const minute = new Date(Date.UTC(2026, 0, 1, 12, 0, 0));
    expect(rows).toEqual([
      { name: 'pg.a', start: minute, done: 2, ms: 320 },
      { name: 'pg.b', start: minute, done: 2, ms: 54_000 },
    ]);
    for (const row of [a1, a2, b1, b2]) {
      expect((await driver.get(row.id))?.finishedAt).toBe(clock.now());
    }
  });
});
