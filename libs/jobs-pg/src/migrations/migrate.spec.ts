import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { postgresJobDriver } from '../driver/pg-driver';
import { JOBS_TABLES } from '../schema';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import { JOBS_MIGRATIONS } from './all-migrations';
import { SQL_JOBS_TABLE } from './install-script';
import { migrate } from './migrate';

const tablesIn = async (db: TestDatabase, schema: string): Promise<string[]> => {
  const { rows } = await db.pool.query<{ table_name: string }>(
    `select table_name from information_schema.tables where table_schema = $1::text order by 1`,
    [schema],
  );
  return rows.map((r) => r.table_name);
};

describe('migrate', () => {
  let db: TestDatabase;

  beforeEach(async () => {
    db = await createTestDatabase({ migrate: false });
  });
  afterEach(async () => {
    await db.drop();
  });

  it('installs every table once when 8 migrators race on a fresh database', async () => {
    // 8 processes booting at once: 8 statements in flight, each on its own pooled connection
    const executor = pgPoolExecutor(db.pool);
    await Promise.all(Array.from({ length: 8 }, () => migrate(executor)));
    expect(await tablesIn(db, 'public')).toEqual([...JOBS_TABLES].sort());
    const { rows } = await db.pool.query<{ id: number; name: string }>(
      'select id, name from x_migrations order by id',
    );
    expect(rows).toEqual(JOBS_MIGRATIONS.map((m) => ({ id: m.id, name: m.name })));
  });

  it('applies nothing twice: SQL_JOBS_TABLE then migrate() again is a no-op', async () => {
    await db.pool.query(SQL_JOBS_TABLE);
    await db.pool.query(SQL_JOBS_TABLE);
    await migrate(db.executor);
    const { rows } = await db.pool.query<{ n: number }>(
      'select count(*)::int as n from x_migrations',
    );
    expect(rows[0]?.n).toBe(JOBS_MIGRATIONS.length);
  });

  it('installs into a named schema, and the driver works there', async () => {
    await Promise.all([
      migrate(db.executor, { schema: 'jobs_alt' }),
      migrate(db.executor, { schema: 'jobs_alt' }),
    ]);
    expect(await tablesIn(db, 'jobs_alt')).toEqual([...JOBS_TABLES].sort());
    expect(await tablesIn(db, 'public')).toEqual([]);
    const driver = postgresJobDriver({ executor: db.executor, schema: 'jobs_alt' });
    const id = '01950000-0000-7000-8000-000000000001';
    const request = {
      id,
      runId: '01950000-0000-7000-8000-000000000002',
      name: 'schema.job',
      queue: 'q',
      input: { a: 1 },
      idempotencyKey: 'k',
      tenantId: null,
      enqueuedBy: null,
      runAt: Date.now(),
      maxAttempts: 1,
      priority: 0,
      onConflict: 'dedupe' as const,
      concurrencyKey: null,
      traceparent: null,
    };
    expect(await driver.enqueue(request)).toEqual({ id, runId: request.runId, deduped: false });
    const [claimed] = await driver.claim({
      workerId: 'w',
      slots: [{ queue: 'q', limit: 1 }],
      visibilityTimeoutMs: 1_000,
    });
    expect(claimed?.id).toBe(id);
  });

  it('refuses a schema name that is not a plain identifier, before any statement', async () => {
    await expect(migrate(db.executor, { schema: 'x"; drop table y; --' })).rejects.toMatchObject({
      code: 'X_INVARIANT',
    });
    expect(() => postgresJobDriver({ executor: db.executor, schema: 'Bad-Name' })).toThrow(
      expect.objectContaining({ code: 'X_INVARIANT' }),
    );
  });
});
