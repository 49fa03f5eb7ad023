import { request } from '../../test/requests';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import type { PgExecutor, PgQueryResult } from '../executor/pg-executor';
import { SQL_JOBS_ANALYZE } from '../sql/jobs-analyze.sql';
import { SQL_JOBS_STATS_YOUNG } from '../sql/jobs-stats-young.sql';
import { postgresJobDriver } from './pg-driver';

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/**
 * `executor` as `shared` says (absent: the field left out), logging each young-table statement it runs in `sent`.
 * `failLooks` makes that many looks fail first; `holdLook` / `holdAnalyze` keep the first look / ANALYZE from reaching
 * the database until `release()`, `arrived` resolving once it was sent, `analyzed` once the ANALYZE answered.
 */
function logging(
  executor: PgExecutor,
  options: { shared?: boolean; failLooks?: number; holdLook?: boolean; holdAnalyze?: boolean } = {},
) {
  const sent: string[] = [];
  let failures = options.failLooks ?? 0;
  const arrived = signal();
  const released = signal();
  const state = { analyzed: false };
  async function query<R>(text: string, values: readonly unknown[]): Promise<PgQueryResult<R>> {
    const look = text === SQL_JOBS_STATS_YOUNG;
    const analyze = text === SQL_JOBS_ANALYZE;
    if (look) sent.push('look');
    if (analyze) sent.push('analyze');
    if (look && failures > 0) {
      failures--;
      throw new Error('Connection terminated unexpectedly');
    }
    const held = (look && options.holdLook === true) || (analyze && options.holdAnalyze === true);
    if (held) {
      arrived.resolve();
      await released.promise;
    }
    const result = await executor.query<R>(text, values);
    if (analyze) state.analyzed = true;
    return result;
  }
  const logged: PgExecutor = 'shared' in options ? { shared: options.shared, query } : { query };
  return { executor: logged, sent, arrived: arrived.promise, release: released.resolve, state };
}

/** `count` fresh requests on queue `q`, job `n`. */
const requests = (count: number) =>
  Array.from({ length: count }, () => request({ queue: 'q', name: 'n' }));

/** What the statistics of x_jobs count: -1 before the first ANALYZE. */
async function reltuples(db: TestDatabase): Promise<number> {
  const { rows } = await db.executor.query<{ n: number }>(
    `select reltuples::float8 as n from pg_class where oid = 'x_jobs'::regclass`,
    [],
  );
  return Number(rows[0]?.n);
}

/**
 * When the driver looks at a young x_jobs, and when it does not: the count of rows restarts at each look, a look
 * finding the statistics still young (an ANALYZE of a few hundred rows) analyses again, one look at a time, and
 * `close()` waits for the ANALYZE itself. Each test on a database of its own, autovacuum off for x_jobs.
 */
describe('a young x_jobs: when the driver looks (PostgreSQL)', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase({ poolSize: 4 });
    await db.executor.query('alter table x_jobs set (autovacuum_enabled = false)', []);
  });
  afterEach(async () => {
    await db?.drop();
  });

  it('analyses again after the next 1,000 rows when the statistics it gave counted fewer', async () => {
    const { executor, sent } = logging(db.executor, { shared: true });
    const driver = postgresJobDriver({ executor });
    await driver.enqueueMany(requests(600));
    const claimed = await driver.claim({
      workerId: 'w',
      slots: [{ queue: 'q', limit: 400 }],
      visibilityTimeoutMs: 30_000,
    });
    expect(claimed).toHaveLength(400);
    await driver.close();
    expect(sent).toEqual(['look', 'analyze']);
    expect(await reltuples(db)).toBe(600);
    await driver.enqueueMany(requests(1_000));
    await driver.close();
    expect(sent).toEqual(['look', 'analyze', 'look', 'analyze']);
    expect(await reltuples(db)).toBe(1_600);
  });

  it('counts the next 1,000 rows from the look, not from the last row it counted', async () => {
    const { executor, sent } = logging(db.executor, { shared: true, failLooks: 1 });
    const driver = postgresJobDriver({ executor });
    await driver.enqueueMany(requests(1_000));
    await driver.close();
    expect(sent).toEqual(['look']);
    await driver.enqueueMany(requests(999));
    await driver.close();
    expect(sent).toEqual(['look']);
    await driver.enqueue(request({ queue: 'q', name: 'n' }));
    await driver.close();
    expect(sent).toEqual(['look', 'look', 'analyze']);
    expect(await reltuples(db)).toBe(2_000);
  });

  it('looks once at a time: rows counted meanwhile start the next look at the next row, not at an empty claim', async () => {
    const { executor, sent, arrived, release } = logging(db.executor, {
      shared: true,
      holdLook: true,
    });
    const driver = postgresJobDriver({ executor });
    await driver.enqueueMany(requests(1_000));
    await arrived; // the look is in flight, held
    await driver.enqueueMany(requests(1_000));
    release();
    await driver.close();
    expect(sent).toEqual(['look', 'analyze']);
    expect(await reltuples(db)).toBe(2_000);
    const nothing = await driver.claim({
      workerId: 'w',
      slots: [{ queue: 'empty', limit: 10 }],
      visibilityTimeoutMs: 30_000,
    });
    expect(nothing).toEqual([]);
    await driver.close();
    expect(sent).toEqual(['look', 'analyze']);
    // the 1,000 rows counted while the look was in flight: the next row starts a look, which finds them grown
    await driver.enqueue(request({ queue: 'q', name: 'n' }));
    await driver.close();
    expect(sent).toEqual(['look', 'analyze', 'look']);
  });

  it('close() answers once the ANALYZE itself has ended', async () => {
    const { executor, sent, arrived, release, state } = logging(db.executor, {
      shared: true,
      holdAnalyze: true,
    });
    const driver = postgresJobDriver({ executor });
    await driver.enqueueMany(requests(1_000));
    const closing = driver.close().then(() => state.analyzed);
    await arrived; // the ANALYZE was sent, held
    release();
    expect(await closing).toBe(true);
    expect(sent).toEqual(['look', 'analyze']);
    expect(await reltuples(db)).toBe(1_000);
  });

  it('never looks over an executor that does not say it is shared', async () => {
    const { executor, sent } = logging(db.executor);
    expect('shared' in executor).toBe(false);
    const driver = postgresJobDriver({ executor });
    for (let i = 0; i < 2; i++) await driver.enqueueMany(requests(1_000));
    await driver.close();
    expect(sent).toEqual([]);
    expect(await reltuples(db)).toBe(-1);
  });
});
