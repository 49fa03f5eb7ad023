import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { testDatabaseUrl } from '../../../../test/test-env';
import { appliedMigrationsFrom, type SqlExecutor } from './migrations-source';

/** A port on this machine nothing listens on: a database there is unreachable. */
const NOWHERE = 'postgres://u@127.0.0.1:1/none';

/**
 * Where `x db backfill` reads the app's applied migrations when x opened PostgreSQL: the database x opened, even with
 * DATABASE_URL set (an operator's shell may point it elsewhere); `--migrations-url` only when given.
 */
describe('appliedMigrationsFrom with x opened on PostgreSQL', () => {
  const url = testDatabaseUrl();
  const schema = `x_migrations_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: url });
  // the database x opened, its search_path on a schema of this file's own
  const opened = new Client({ connectionString: url, options: `-c search_path=${schema}` });
  const executor: SqlExecutor = {
    query: async <R>(text: string, values: readonly unknown[]) => ({
      rows: (await opened.query(text, [...values])).rows as R[],
    }),
  };

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.query(`create table ${schema}.migrations (name text, timestamp bigint)`);
    await admin.query(
      `insert into ${schema}.migrations (name, timestamp) values ('AddSlug1786708800001', 1786708800001)`,
    );
    await opened.connect();
  });
  afterAll(async () => {
    await opened.end();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  });

  it('reads the database x opened, not DATABASE_URL', async () => {
    const applied = await appliedMigrationsFrom({
      needed: true,
      migrationsUrl: undefined,
      executor,
      env: { DATABASE_URL: NOWHERE },
    });
    expect(applied).toEqual(['AddSlug1786708800001', '1786708800001']);
  });

  it('reads the table --migrations-table names, in the schema it names (an app whose DataSource sets schema)', async () => {
    // the database's default search_path, where the app's schema is not: what TypeORM's `schema: '…'` leads to
    const plain: SqlExecutor = {
      query: async <R>(text: string, values: readonly unknown[]) => ({
        rows: (await admin.query(text, [...values])).rows as R[],
      }),
    };
    const read = (migrationsTable: string | undefined) =>
      appliedMigrationsFrom({
        needed: true,
        migrationsUrl: undefined,
        migrationsTable,
        executor: plain,
        env: {},
      });
    expect(await read(undefined)).toEqual([]);
    expect(await read(`${schema}.migrations`)).toEqual(['AddSlug1786708800001', '1786708800001']);
    await expect(read('app.migrations; drop table x')).rejects.toMatchObject({
      code: 'X_INVARIANT',
    });
  });

  it('reads --migrations-url when given, and nothing at all when no backfill requires a migration', async () => {
    const given = appliedMigrationsFrom({
      needed: true,
      migrationsUrl: NOWHERE,
      executor,
      env: {},
    });
    await expect(given).rejects.toMatchObject({ code: 'X_DRIVER_UNAVAILABLE' });
    expect(
      await appliedMigrationsFrom({
        needed: false,
        migrationsUrl: NOWHERE,
        executor,
        env: { DATABASE_URL: NOWHERE },
      }),
    ).toEqual([]);
  });
});
