import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { recordingLogger } from '@ultimat3/jobs';
import { frozenClock } from '@ultimat3/jobs/testing';
import { postgresOutboxStore } from '../outbox/pg-outbox-store';
import { createTestDatabase, type TestDatabase } from '../../test/test-database';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { request } from '../../test/requests';
import { postgresBackend, type PostgresBackendSource } from './pg-backend';

describe('postgresBackend', () => {
  let db: TestDatabase;

  beforeEach(async () => {
    db = await createTestDatabase({ migrate: false });
  });
  afterEach(async () => {
    await db?.drop();
  });

  const migrations = async (): Promise<number> => {
    const { rows } = await db.pool.query<{ n: number }>(
      'select count(*)::int as n from x_migrations',
    );
    return rows[0]?.n ?? 0;
  };

  it('builds a pool from a url, migrates, answers a driver with its scheduler state, and ends the pool', async () => {
    const backend = await postgresBackend({ url: db.url, poolSize: 2 });
    expect(await migrations()).toBeGreaterThan(0);
    expect(backend.driver.kind).toBe('postgres');
    const queued = request();
    await backend.driver.enqueue(queued);
    expect(await backend.driver.get(queued.id)).toMatchObject({ state: 'ready' });
    expect(await backend.driver.schedulerState.skipTo('t', 1_000, undefined)).toBe(true);
    expect(await backend.driver.schedulerState.load(['t'])).toEqual(new Map([['t', 1_000]]));
    // Its event bus is durable: what one process publishes, another process's wait can find.
    const since = await backend.events.now();
    await backend.events.publish('backend.ready', { ok: true });
    const { rows } = await db.executor.query<{ n: string }>(
      "select count(*) as n from x_job_events where name = 'backend.ready'",
      [],
    );
    expect(Number(rows[0]?.n)).toBe(1);
    expect((await backend.events.find('backend.ready', since))?.payload).toEqual({ ok: true });
    await backend.close();
    await backend.close(); // idempotent
    await expect(backend.executor.query('select 1', [])).rejects.toThrow();
  });

  it('migrates safely when eight processes boot at once', async () => {
    const backends = await Promise.all(
      Array.from({ length: 8 }, () => postgresBackend({ url: db.url, poolSize: 1 })),
    );
    const { rows } = await db.pool.query<{ id: number; n: number }>(
      'select id, count(*)::int as n from x_migrations group by id',
    );
    expect(rows.every((r) => r.n === 1)).toBe(true);
    await Promise.all(backends.map((b) => b.close()));
  });

  it('reuses a TypeORM DataSource: no pool of its own, and close() leaves the DataSource open', async () => {
    const dataSource = new DataSource({
      type: 'postgres',
      url: db.url,
      poolSize: 3,
      applicationName: 'the-app',
    });
    await dataSource.initialize();
    try {
      const backend = await postgresBackend({ dataSource }, { clock: frozenClock() });
      // the boot planned the enqueue and the claim on the DataSource's connection (kept-warm.spec.ts), nothing else
      const warmed = await db.pool.query<{ query: string }>(
        `select query from pg_stat_activity
         where datname = current_database() and application_name = 'the-app'`,
      );
      expect(warmed.rows.map((row) => row.query)).toEqual([
        expect.stringMatching(/^explain with h as \(/),
      ]);
      const queued = request();
      await backend.driver.enqueue(queued);
      expect(await backend.driver.get(queued.id)).toMatchObject({ id: queued.id });
      const { rows } = await db.pool.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
         where application_name = 'ultimat3-jobs' and datname = current_database()`,
      );
      expect(rows[0]?.n).toBe(0);
      await backend.close();
      expect(dataSource.isInitialized).toBe(true);
      expect(await dataSource.query('select 1 as one')).toEqual([{ one: 1 }]);
    } finally {
      await dataSource.destroy();
    }
  });

  it('runs on a given executor, and skips the migration when told to', async () => {
    const backend = await postgresBackend({ executor: db.executor }, { migrate: false });
    const { rows } = await db.pool.query(`select to_regclass('x_jobs') as t`);
    expect(rows[0]).toEqual({ t: null });
    await backend.close();
    await db.pool.query('select 1'); // the caller's pool is untouched
  });

  it('ends the pool it built when the migration fails, and refuses a source it cannot use', async () => {
    await expect(
      postgresBackend({ url: db.url, poolSize: 1 }, { schema: 'Not A Schema' }),
    ).rejects.toThrow(/not a plain identifier/);
    for (const source of [{ nothing: true }, { url: 5 }, { url: '' }, undefined, null]) {
      await expect(
        postgresBackend(source as unknown as PostgresBackendSource),
      ).rejects.toMatchObject({
        code: 'X_INVARIANT',
        message: expect.stringMatching(
          /^postgresBackend needs \{ url \}, \{ dataSource \} or \{ executor \}\./,
        ),
        fix: expect.stringContaining('DATABASE_URL'),
      });
    }
  });
});

describe('postgresBackend wakes', () => {
  const db = pgJobsSpec();

  it("wakes a relay when another connection commits a staged outbox row ('x_outbox_wake')", async () => {
    const backend = await postgresBackend({ url: db.url, poolSize: 2 });
    let woken = 0;
    const wake = backend.startOutboxWake?.(() => woken++, recordingLogger());
    expect(wake).toBeDefined();
    try {
      expect(await wake?.ready()).toBe(true); // the probe came back: the session is proven
      const store = postgresOutboxStore({ executor: db.executor });
      await store.stage(request());
      const deadline = Date.now() + 5_000;
      while (woken === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(woken).toBeGreaterThan(0);
    } finally {
      await wake?.stop();
      await backend.close();
    }
  });

  it('offers no wake when it was handed an executor (nothing to dial a LISTEN session from)', async () => {
    const backend = await postgresBackend({ executor: db.executor }, { migrate: false });
    expect(backend.startWake).toBeUndefined();
    expect(backend.startOutboxWake).toBeUndefined();
    await backend.close();
  });
});
