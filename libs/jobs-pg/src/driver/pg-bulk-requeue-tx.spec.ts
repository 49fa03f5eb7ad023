import { Client } from 'pg';
import { request } from '../../test/requests';
import { createTestDatabase, resetJobTables, type TestDatabase } from '../../test/test-database';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { postgresJobDriver } from './pg-driver';

/**
 * `requeueMany` runs again after a unique violation (a live job took a candidate's key after its snapshot). On an
 * executor bound to a caller's transaction that violation aborted the transaction: the retry can only fail with 25P02
 * ("current transaction is aborted"), which hid the violation. The caller gets the violation itself; an executor in
 * no transaction still runs again and answers.
 *
 * The race is staged for real: session B moves a cancelled row holding key K back to ready and holds its transaction
 * open; A's requeue sees no live K (B's write is not committed), picks the dead row of K, waits on B's index entry and
 * meets B's commit as a unique violation.
 */
describe('requeueMany meeting a live key taken after its snapshot (PostgreSQL)', () => {
  let db: TestDatabase;
  const opened: Client[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });
  beforeEach(async () => {
    await resetJobTables(db.executor);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((client) => client.end()));
  });

  const client = async (): Promise<Client> => {
    const c = new Client({ connectionString: db.url });
    c.on('error', () => undefined);
    await c.connect();
    opened.push(c);
    return c;
  };

  /** A dead row and a cancelled row, both holding key `k`. */
  const seed = async (): Promise<void> => {
    const driver = postgresJobDriver({ executor: db.executor });
    for (const state of ['cancelled', 'dead']) {
      const { id } = await driver.enqueue(request({ idempotencyKey: 'k' }));
      await db.executor.query(
        'update x_jobs set state = $2::text, finished_at = now() where id = $1::uuid',
        [id, state],
      );
    }
  };

  /** Session B: the cancelled row of `k` back to ready, its transaction left open. */
  const takeKey = async (): Promise<Client> => {
    const b = await client();
    await b.query('begin');
    const driver = postgresJobDriver({ executor: pgPoolExecutor(b) });
    expect(await driver.introspect.requeueMany({ state: 'cancelled' })).toEqual({
      affected: 1,
      remaining: 0,
    });
    return b;
  };

  // A's own connection is busy with the requeue while it waits: its pid is read before
  /** Resolves once `pid` waits on a lock: A's update reached B's uncommitted index entry. */
  const waiting = async (pid: number): Promise<void> => {
    for (let i = 0; i < 500; i++) {
      const { rows } = await db.executor.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where pid = $1::int and wait_event_type = 'Lock'",
        [pid],
      );
      if (rows[0]?.n === 1) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('the requeue never waited on the live key');
  };

  const pidOf = async (c: Client): Promise<number> =>
    (await c.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;

  it("inside the caller's transaction: the unique violation itself, not the aborted transaction's 25P02", async () => {
    await seed();
    const b = await takeKey();
    const a = await client();
    const pid = await pidOf(a);
    await a.query('begin');
    const driver = postgresJobDriver({ executor: pgPoolExecutor(a) });
    const requeued = driver.introspect.requeueMany({ state: 'dead' });
    requeued.catch(() => undefined);
    await waiting(pid);
    await b.query('commit');

    await expect(requeued).rejects.toMatchObject({ code: '23505' });
    await a.query('rollback');
  });

  it('on a connection in no transaction: runs again and leaves the row whose key is now live', async () => {
    await seed();
    const b = await takeKey();
    const a = await client();
    const pid = await pidOf(a);
    const driver = postgresJobDriver({ executor: pgPoolExecutor(a) });
    const requeued = driver.introspect.requeueMany({ state: 'dead' });
    requeued.catch(() => undefined);
    await waiting(pid);
    await b.query('commit');

    await expect(requeued).resolves.toEqual({ affected: 0, remaining: 0 });
  });
});
