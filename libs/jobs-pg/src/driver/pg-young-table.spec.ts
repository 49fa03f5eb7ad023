import { Client, Pool } from 'pg';
import { testDatabaseUrl } from '../../../../test/test-env';
import { request } from '../../test/requests';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import type { PgExecutor } from '../executor/pg-executor';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { migrate } from '../migrations/migrate';
import { qualify } from '../schema';
import { SQL_CLAIM_WOKEN } from '../sql/claim-woken.sql';
import { SQL_JOBS_ANALYZE } from '../sql/jobs-analyze.sql';
import { SQL_JOBS_STATS_YOUNG } from '../sql/jobs-stats-young.sql';
import { postgresJobDriver } from './pg-driver';
import { YOUNG_TABLE_ROWS } from './pg-young-table';

/** The schema of the test that places the tables in one of their own. */
const SCHEMA = 'jobs_young';

/**
 * `executor`, logging each young-table statement it runs in `sent`, and every statement in `order` (the driver's own
 * as `other`); `failLooks` makes that many looks fail first.
 */
function logging(executor: PgExecutor, options: { shared?: boolean; failLooks?: number } = {}) {
  const sent: string[] = [];
  const order: string[] = [];
  let failures = options.failLooks ?? 0;
  const logged: PgExecutor = {
    shared: options.shared ?? executor.shared === true,
    query(text, values) {
      const look = text === SQL_JOBS_STATS_YOUNG || text === qualify(SQL_JOBS_STATS_YOUNG, SCHEMA);
      const analyze = text === SQL_JOBS_ANALYZE || text === qualify(SQL_JOBS_ANALYZE, SCHEMA);
      const kind = look ? 'look' : analyze ? 'analyze' : 'other';
      if (kind !== 'other') sent.push(kind);
      order.push(kind);
      if (look && failures > 0) {
        failures--;
        return Promise.reject(new Error('Connection terminated unexpectedly'));
      }
      return executor.query(text, values);
    },
  };
  return { executor: logged, sent, order };
}

/** `count` fresh requests on queue `q`, job `n`. */
const requests = (count: number) =>
  Array.from({ length: count }, () => request({ queue: 'q', name: 'n' }));

/** What the statistics of `table` (default x_jobs) count: -1 before the first ANALYZE. */
async function reltuples(db: TestDatabase, table = 'x_jobs'): Promise<number> {
  const { rows } = await db.executor.query<{ n: number }>(
    `select reltuples::float8 as n from pg_class where oid = $1::regclass`,
    [table],
  );
  return Number(rows[0]?.n);
}

/**
 * A young x_jobs gets its first statistics from the driver once it has seen 1,000 rows, so a claim planned while the
 * table was empty stops reaching its rows by a sequential scan. Each test on a database of its own, autovacuum off
 * for x_jobs, so every ANALYZE seen is the driver's.
 */
describe('a young x_jobs (PostgreSQL)', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase({ poolSize: 4 });
    await db.executor.query('alter table x_jobs set (autovacuum_enabled = false)', []);
  });
  afterEach(async () => {
    await db?.drop();
  });

  /** How `session`'s prepared claim, on its cached generic plan, reaches x_jobs: the plan's line naming it. */
  async function claimReach(session: Client): Promise<string> {
    await session.query('begin');
    const { rows } = await session.query<{ 'QUERY PLAN': string }>(
      `explain (costs off) execute claim(null, 'w', 'q', 'n', 10, 0, null, '{}', 30000, false)`,
    );
    await session.query('rollback');
    const lines = rows.map((r) => r['QUERY PLAN']);
    return (
      lines.find((line) => /Scan( using \S+)? on x_jobs j\b/.test(line))?.trim() ?? lines.join('\n')
    );
  }

  it('analyses the table once it has enqueued 1,000 rows, and a claim planned on the empty table is planned again by the primary key', async () => {
    expect(YOUNG_TABLE_ROWS).toBe(1_000);
    const session = new Client({ connectionString: db.url });
    await session.connect();
    try {
      await session.query('set plan_cache_mode = force_generic_plan');
      await session.query(`prepare claim as ${SQL_CLAIM_WOKEN}`);
      expect(await claimReach(session)).toMatch(/^-> {2}Seq Scan on x_jobs j/);

      const { executor, sent } = logging(db.executor);
      const driver = postgresJobDriver({ executor });
      await driver.enqueueMany(requests(999));
      await driver.close();
      expect(sent).toEqual([]);
      expect(await reltuples(db)).toBe(-1);

      await driver.enqueue(request({ queue: 'q', name: 'n' }));
      await driver.close(); // awaits the look the 1,000th row started
      expect(sent).toEqual(['look', 'analyze']);
      expect(await reltuples(db)).toBe(1_000);
      expect(await claimReach(session)).toMatch(
        / using x_jobs_pkey on x_jobs j|Bitmap Heap Scan on x_jobs j/,
      );
    } finally {
      await session.end();
    }
  });

  it('counts the rows it claims as well, in a schema of its own', async () => {
    await migrate(db.executor, { schema: SCHEMA });
    await db.executor.query(`alter table ${SCHEMA}.x_jobs set (autovacuum_enabled = false)`, []);
    const { executor, sent } = logging(db.executor);
    const driver = postgresJobDriver({ executor, schema: SCHEMA });
    const slots = [{ queue: 'q', names: ['n'], limit: 400 }];
    await driver.enqueueMany(requests(600));
    const claimed = await driver.claim({ workerId: 'w', slots, visibilityTimeoutMs: 30_000 });
    expect(claimed).toHaveLength(400);
    await driver.close();
    expect(sent).toEqual(['look', 'analyze']);
    expect(await reltuples(db, `${SCHEMA}.x_jobs`)).toBe(600);
  });

  it('looks once the statistics have grown, and never again', async () => {
    const { executor, sent } = logging(db.executor);
    const driver = postgresJobDriver({ executor });
    await driver.enqueueMany(requests(1_500));
    await driver.close();
    expect(await reltuples(db)).toBe(1_500);
    await driver.enqueueMany(requests(1_000));
    await driver.close();
    await driver.enqueueMany(requests(3_000));
    await driver.close();
    expect(sent).toEqual(['look', 'analyze', 'look']);
    expect(await reltuples(db)).toBe(1_500);
  });

  it('looks after the statement its caller sends next, so that statement takes the idle connection first', async () => {
    const { executor, order } = logging(db.executor);
    const driver = postgresJobDriver({ executor });
    await driver.enqueueMany(requests(1_000));
    // the caller's next statement, sent in the turn the 1,000th row answered in
    const next = driver.enqueue(request({ queue: 'q', name: 'n' }));
    expect(order).toEqual(['other', 'other']);
    await next;
    await driver.close();
    expect(order).toEqual(['other', 'other', 'look', 'analyze']);
  });

  it('never looks over an executor bound to one connection or a caller’s transaction', async () => {
    const { executor, sent } = logging(db.executor, { shared: false });
    const driver = postgresJobDriver({ executor });
    for (let i = 0; i < 3; i++) await driver.enqueueMany(requests(1_000));
    await driver.close();
    expect(sent).toEqual([]);
    expect(await reltuples(db)).toBe(-1);
  });

  it('a failed look costs no enqueue and is tried again after the next 1,000 rows', async () => {
    const { executor, sent } = logging(db.executor, { failLooks: 1 });
    const driver = postgresJobDriver({ executor });
    await expect(driver.enqueueMany(requests(1_000))).resolves.toHaveLength(1_000);
    await driver.close();
    expect(sent).toEqual(['look']);
    expect(await reltuples(db)).toBe(-1);
    await driver.enqueueMany(requests(1_000));
    await driver.close();
    expect(sent).toEqual(['look', 'look', 'analyze']);
    expect(await reltuples(db)).toBe(2_000);
  });
});

describe('a young x_jobs, enqueued by a role that does not own it (PostgreSQL)', () => {
  let db: TestDatabase;
  const role = `jobs_young_${process.pid}`;
  beforeAll(async () => {
    db = await createTestDatabase({ poolSize: 2 });
    await db.executor.query('alter table x_jobs set (autovacuum_enabled = false)', []);
    await db.executor.query(`create role ${role} login password 'young'`, []);
    await db.executor.query(
      `grant select, insert, update, delete on all tables in schema public to ${role}`,
      [],
    );
  });
  afterAll(async () => {
    await db?.executor.query(`drop owned by ${role}`, []);
    await db?.drop();
    const admin = new Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    await admin.query(`drop role if exists ${role}`);
    await admin.end();
  });

  it('gets a warning, not an error: its enqueues land, the statistics stay to autovacuum, and it looks again', async () => {
    const url = new URL(db.url);
    url.username = role;
    url.password = 'young';
    const pool = new Pool({ connectionString: url.toString(), max: 2 });
    const notices: string[] = [];
    pool.on('connect', (client) =>
      client.on('notice', (notice) => notices.push(notice.message ?? '')),
    );
    try {
      const { executor, sent } = logging(pgPoolExecutor(pool));
      const driver = postgresJobDriver({ executor });
      await expect(driver.enqueueMany(requests(1_000))).resolves.toHaveLength(1_000);
      await driver.close();
      await expect(driver.enqueueMany(requests(1_000))).resolves.toHaveLength(1_000);
      await driver.close();
      expect(sent).toEqual(['look', 'analyze', 'look', 'analyze']);
      expect(notices).toEqual([
        expect.stringMatching(
          /permission denied to analyze "x_jobs", skipping it|only table or database owner can analyze it/,
        ),
        expect.stringMatching(
          /permission denied to analyze "x_jobs", skipping it|only table or database owner can analyze it/,
        ),
      ]);
      expect(await reltuples(db)).toBe(-1);
    } finally {
      await pool.end();
    }
  });
});
