import { Client, Pool } from 'pg';
import { request } from '../../test/requests';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import { postgresJobDriver } from '../driver/pg-driver';
import { keepsConnection, pgPoolExecutor } from './pg-pool-executor';

/**
 * Over a `pg.Pool`, a statement's failure that concerns the statement alone keeps its connection (and the statements
 * prepared on it); a lost connection or a stale prepared plan ends it, and the next statement runs on a fresh one.
 * `pool.query()` ended the connection on every error: each unique violation the enqueue's fast paths expect cost a
 * new connection, ~20 ms.
 */
describe('pgPoolExecutor over a pool (PostgreSQL)', () => {
  let db: TestDatabase;
  let pool: Pool;
  let opened = 0;

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.executor.query('create table exec_t (id int primary key, note text)', []);
  });
  afterAll(async () => {
    await db.drop();
  });
  beforeEach(async () => {
    await db.executor.query('delete from exec_t', []);
    await db.executor.query("insert into exec_t values (1, 'one')", []);
    pool = new Pool({ connectionString: db.url, max: 1 });
    pool.on('error', () => undefined);
    opened = 0;
    pool.on('connect', () => opened++);
  });
  afterEach(async () => {
    await pool.end();
  });

  const pidOf = async (executor: ReturnType<typeof pgPoolExecutor>): Promise<number> => {
    const { rows } = await executor.query<{ pid: number }>(
      'select pg_backend_pid() as pid where $1::int = 1',
      [1],
    );
    return rows[0]?.pid ?? -1;
  };

  it('keeps the connection and its prepared statements through a unique violation', async () => {
    const executor = pgPoolExecutor(pool);
    const insert = 'insert into exec_t (id, note) values ($1::int, $2::text)';
    await executor.query(insert, [2, 'two']);
    const pid = await pidOf(executor);

    await expect(executor.query(insert, [1, 'again'])).rejects.toMatchObject({ code: '23505' });

    expect(await pidOf(executor)).toBe(pid);
    expect(opened).toBe(1);
    const { rows } = await executor.query<{ n: number }>(
      'select count(*)::int as n from pg_prepared_statements where statement = $1::text',
      [insert],
    );
    expect(rows[0]?.n).toBe(1); // still prepared on the one connection: not parsed again
    await executor.query(insert, [3, 'three']);
    expect(opened).toBe(1);
  });

  it('ends a connection lost mid-statement, without an unhandled error, and the next statement opens another', async () => {
    const executor = pgPoolExecutor(pool);
    const pid = await pidOf(executor);
    const admin = new Client({ connectionString: db.url });
    await admin.connect();
    try {
      const sleeping = executor.query('select pg_sleep($1::float8)', [30]);
      await waitFor(async () => {
        const { rows } = await admin.query<{ n: number }>(
          "select count(*)::int as n from pg_stat_activity where pid = $1 and state = 'active'",
          [pid],
        );
        return rows[0]?.n === 1;
      });
      await admin.query('select pg_terminate_backend($1)', [pid]);
      await expect(sleeping).rejects.toBeInstanceOf(Error);
    } finally {
      await admin.end();
    }
    const next = await pidOf(executor);
    expect(next).not.toBe(pid);
    expect(opened).toBe(2);
  });

  it('ends a connection whose prepared plan no longer fits its table, so the next statement prepares it afresh', async () => {
    const executor = pgPoolExecutor(pool);
    const read = 'select * from exec_t where id = $1::int';
    expect((await executor.query(read, [1])).rows).toEqual([{ id: 1, note: 'one' }]);
    await db.executor.query('alter table exec_t add column extra int', []);

    await expect(executor.query(read, [1])).rejects.toMatchObject({ code: '0A000' });

    expect((await executor.query(read, [1])).rows).toEqual([{ id: 1, note: 'one', extra: null }]);
    expect(opened).toBe(2);
    await db.executor.query('alter table exec_t drop column extra', []);
  });

  it('a deduped enqueue, whose fast insert fails on the held key, opens no connection', async () => {
    const driver = postgresJobDriver({ executor: pgPoolExecutor(pool) });
    const first = await driver.enqueue(request({ idempotencyKey: 'held' }));
    const connections = opened;
    for (let i = 0; i < 20; i++) {
      const again = await driver.enqueue(request({ idempotencyKey: 'held' }));
      expect(again).toEqual({ id: first.id, runId: first.runId, deduped: true });
    }
    expect(opened).toBe(connections);
  });

  it('tells the failures that concern the statement alone', () => {
    for (const code of [
      '23505',
      '23503',
      '22P02',
      '40001',
      '40P01',
      '42P01',
      '55P03',
      '57014',
      'P0001',
    ])
      expect([code, keepsConnection({ code })]).toEqual([code, true]);
    for (const code of [
      '0A000',
      '57P01',
      '08006',
      '53200',
      'XX000',
      '25P02',
      '26000',
      'ECONNRESET',
      undefined,
    ])
      expect([code, keepsConnection({ code })]).toEqual([code, false]);
    expect(keepsConnection(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(keepsConnection(null)).toBe(false);
  });
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('waitFor: the condition never held');
}
