import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { pgJobsSpec } from '../../test/pg-jobs-spec';
import { postgresBackend } from '../backend/pg-backend';
import { pgPoolExecutor } from '../executor/pg-pool-executor';
import { JOBS_MIGRATIONS } from './all-migrations';
import { migrate } from './migrate';

/**
 * Many processes booting at once on a database whose sessions default to a stricter isolation than read committed
 * (`alter database … set default_transaction_isolation`): the install's transaction would read the ledger through a
 * snapshot taken before it held the migration lock, miss what the installer ahead of it committed, and apply it again
 * ("relation x_jobs already exists").
 */
describe('migrate on a database whose sessions default to a stricter isolation', () => {
  const db = pgJobsSpec({ migrate: false });

  /** The database emptied, its sessions defaulting to `level`; `run` races on it, then the ledger is read. */
  async function racedAt(level: string, run: (pool: Pool) => Promise<unknown>): Promise<number[]> {
    await db.pool.query(`drop schema if exists public cascade; create schema public`);
    await db.pool.query(`alter database ${db.name} set default_transaction_isolation = '${level}'`);
    const pool = new Pool({ connectionString: db.url, max: 8 });
    try {
      const { rows: shown } = await pool.query<{ level: string }>(
        `select current_setting('transaction_isolation') as level`,
      );
      expect(shown[0]?.level).toBe(level);
      await run(pool);
      const { rows } = await pool.query<{ id: number }>('select id from x_migrations order by id');
      return rows.map((r) => r.id);
    } finally {
      await pool.end();
      await db.pool.query(`alter database ${db.name} reset default_transaction_isolation`);
    }
  }

  for (const level of ['repeatable read', 'serializable']) {
    it(`8 migrate() racing over a pool install once (${level})`, async () => {
      const ids = await racedAt(level, async (pool) => {
        const executor = pgPoolExecutor(pool);
        await Promise.all(Array.from({ length: 8 }, () => migrate(executor)));
      });
      expect(ids).toEqual(JOBS_MIGRATIONS.map((m) => m.id));
    });

    it(`8 postgresBackend({ url }) booting at once install once (${level})`, async () => {
      const ids = await racedAt(level, async () => {
        const backends = await Promise.all(
          Array.from({ length: 8 }, () =>
            postgresBackend({ url: db.url }, { connectTimeoutMs: 20_000 }),
          ),
        );
        await Promise.all(backends.map((backend) => backend.close()));
      });
      expect(ids).toEqual(JOBS_MIGRATIONS.map((m) => m.id));
    });

    it(`8 postgresBackend({ dataSource }) booting at once install once (${level})`, async () => {
      const ids = await racedAt(level, async () => {
        const dataSources = Array.from(
          { length: 8 },
          () => new DataSource({ type: 'postgres', url: db.url, poolSize: 2 }),
        );
        await Promise.all(dataSources.map((dataSource) => dataSource.initialize()));
        try {
          const backends = await Promise.all(
            dataSources.map((dataSource) =>
              postgresBackend({ dataSource }, { connectTimeoutMs: 20_000 }),
            ),
          );
          await Promise.all(backends.map((backend) => backend.close()));
        } finally {
          await Promise.all(dataSources.map((dataSource) => dataSource.destroy()));
        }
      });
      expect(ids).toEqual(JOBS_MIGRATIONS.map((m) => m.id));
    });
  }
});
